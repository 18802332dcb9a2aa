/*---
description: a call started in a job after the cell returned is never dispatched
requirements: [CM-NEST-23]
class: bridge
tools: [echo]
expect:
  anyOf:
    - value: '"done"'
    - status: failed
---*/
Promise.resolve().then(() => Promise.resolve()).then(() => dispatch("echo", {late: true}));
return "done";
