/*---
description: exponential backtracking through nested groups and a backreference ends with timeout
requirements: [CM-LIM-01]
class: dos
timeoutMs: 1000
expect:
  code: timeout
---*/
return /^((x|xx|x{1,3})+)+\1y$/.test("x".repeat(5000));
