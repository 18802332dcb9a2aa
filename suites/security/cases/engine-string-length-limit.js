/*---
description: building a string past the engine's maximum length throws a RangeError or hits the memory limit
requirements: [CM-SEC-04, CM-LIM-02]
class: engine
expect:
  anyOf:
    - value: '"RangeError"'
    - value: '"InternalError"'
    - code: memory_limit_exceeded
---*/
try { return "ab".repeat(2 ** 30).length; } catch (e) { return e.name; }
