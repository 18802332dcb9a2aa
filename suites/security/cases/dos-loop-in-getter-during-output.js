/*---
description: an infinite loop in a getter hit while the host reads the cell's value ends with timeout
requirements: [CM-LIM-01, CM-GUEST-08]
class: dos
timeoutMs: 1000
expect:
  code: timeout
---*/
return {get x() { for (;;) {} }};
