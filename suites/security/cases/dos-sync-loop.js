/*---
description: a synchronous infinite loop ends with timeout at about timeoutMs
requirements: [CM-LIM-01]
class: dos
timeoutMs: 1000
expect:
  code: timeout
---*/
while (true) {}
