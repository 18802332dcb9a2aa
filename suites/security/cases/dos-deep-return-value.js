/*---
description: a cell value nested 100000 deep fails the cell cleanly (it is never cut silently)
requirements: [CM-LIM-04, CM-GUEST-08]
class: dos
expect:
  status: failed
---*/
let o = [];
for (let i = 0; i < 100000; i++) o = [o];
return o;
