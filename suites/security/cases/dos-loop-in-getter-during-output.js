/*---
description: an infinite loop in a getter hit while the host reads the cell's value ends with timeout (an output adapter that never runs the getter runs no loop; how the value crosses is CM-GUEST-08's)
requirements: [CM-LIM-01]
class: dos
timeoutMs: 1000
expect:
  anyOf:
    - code: timeout
    - status: completed
---*/
return {get x() { for (;;) {} }};
