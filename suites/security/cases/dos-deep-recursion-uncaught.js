/*---
description: unbounded recursion the guest does not catch fails the cell cleanly
requirements: [CM-LIM-04, CM-SEC-04]
class: dos
expect:
  status: failed
---*/
const f = (n) => [f(n + 1)];
return f(0);
