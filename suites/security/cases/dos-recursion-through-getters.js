/*---
description: recursion through a getter while the host serialises the value fails cleanly or becomes a plain string for that member
requirements: [CM-LIM-04, CM-GUEST-08]
class: dos
expect:
  anyOf:
    - status: failed
    - valueMatches: '^\{"x":"[^"]*"\}$'
---*/
const o = {get x() { return {y: o.x}; }};
return o;
