/*---
description: a cell value nested 100000 deep fails the cell cleanly or reaches the host cut to a plain string at some depth
requirements: [CM-LIM-04, CM-GUEST-08]
class: dos
expect:
  anyOf:
    - status: failed
    - valueMatches: '^\[+"[^"]*"\]+$'
---*/
let o = [];
for (let i = 0; i < 100000; i++) o = [o];
return o;
