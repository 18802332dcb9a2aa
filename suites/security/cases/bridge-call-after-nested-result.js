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
dispatch("echo", {first: true}).then(() => dispatch("echo", {late: "then"})).catch(() => {});
return "done";
