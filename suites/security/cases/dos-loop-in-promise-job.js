/*---
description: an infinite loop inside a promise job ends with timeout
requirements: [CM-LIM-01]
class: dos
timeoutMs: 1000
expect:
  code: timeout
---*/
await Promise.resolve().then(() => { for (;;) {} });
return "unreachable";
