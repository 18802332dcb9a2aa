/*---
description: a call started in a finally handler of the returned promise is never dispatched after the answer
requirements: [CM-NEST-23]
class: bridge
tools: [echo]
expect:
  anyOf:
    - value: '"done"'
    - status: failed
---*/
return Promise.resolve("done").finally(() => { tools.call(id("echo"), {late: "finally"}); });
