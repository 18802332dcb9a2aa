/*---
description: "a call the guest never awaits is not lost: the cell waits for it or reports it"
requirements: [CM-NEST-09]
class: bridge
tools: [echo]
expect:
  anyOf:
    - value: '"returned"'
    - status: failed
---*/
dispatch("echo", {unawaited: true});
return "returned";
