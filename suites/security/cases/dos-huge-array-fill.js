/*---
description: filling an array of a billion elements fails with memory_limit_exceeded
requirements: [CM-LIM-02]
class: dos
timeoutMs: 1000
expect:
  anyOf:
    - code: memory_limit_exceeded
    - code: timeout
---*/
return new Array(1e9).fill(0).length;
