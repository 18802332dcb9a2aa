/*---
description: sorting an array of length 2^32-1 ends cleanly (a value, a guest error or a limit)
requirements: [CM-SEC-04, CM-LIM-01]
class: dos
timeoutMs: 1000
expect:
  anyOf:
    - value: '4294967295'
    - status: failed
---*/
const a = [];
a.length = 4294967295;
return a.sort().length;
