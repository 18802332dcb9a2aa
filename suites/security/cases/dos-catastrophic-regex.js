/*---
description: catastrophic backtracking in a regular expression ends with timeout
requirements: [CM-LIM-01]
class: dos
timeoutMs: 1000
expect:
  code: timeout
---*/
return /^(a+)+$/.test("a".repeat(40) + "b");
