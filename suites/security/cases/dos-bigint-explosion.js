/*---
description: a BigInt too large to compute ends with a RangeError, a limit or timeout
requirements: [CM-LIM-01, CM-LIM-02]
class: dos
timeoutMs: 1000
expect:
  anyOf:
    - value: '"RangeError"'
    - value: '"InternalError"'
    - code: memory_limit_exceeded
    - code: timeout
---*/
try { return String(2n ** 1000000000n).length; } catch (e) { return e.name; }
