/*---
description: a 2 GiB typed array is refused with a RangeError or memory_limit_exceeded
requirements: [CM-LIM-02]
class: dos
expect:
  anyOf:
    - value: '"RangeError"'
    - value: '"InternalError"'
    - code: memory_limit_exceeded
---*/
try { return new Uint8Array(2 ** 31).length; } catch (e) { return e.name; }
