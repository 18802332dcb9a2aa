/*---
description: recursion through getters while the host serialises the value fails cleanly
requirements: [CM-LIM-04, CM-GUEST-08]
class: dos
expect:
  status: failed
---*/
const o = {get x() { return {y: o.x}; }};
return o;
