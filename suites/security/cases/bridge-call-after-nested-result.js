/*---
description: a call made by the continuation of an earlier nested call, after the cell returned, is never dispatched
requirements: [CM-NEST-23]
class: bridge
tools: [echo]
expect:
  anyOf:
    - value: '"done"'
    - status: failed
---*/
tools.call(id("echo"), {first: true}).then(() => tools.call(id("echo"), {late: "then"})).catch(() => {});
return "done";
