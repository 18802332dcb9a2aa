/*---
description: a string far larger than memoryLimitBytes fails fast with memory_limit_exceeded
requirements: [CM-LIM-02]
class: dos
expect:
  code: memory_limit_exceeded
---*/
const s = "x".repeat(1 << 28);
return s.length;
