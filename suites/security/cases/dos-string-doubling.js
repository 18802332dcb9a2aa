/*---
description: doubling a string until it no longer fits fails with memory_limit_exceeded or a guest error, never as an engine crash
requirements: [CM-LIM-02, CM-EXEC-23]
class: dos
expect:
  anyOf:
    - code: memory_limit_exceeded
    - errorMatches: '^(Uncaught )?(RangeError|InternalError)'
---*/
let s = "xy";
for (;;) s += s + "z";
