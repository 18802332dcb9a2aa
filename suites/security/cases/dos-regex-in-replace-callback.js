/*---
description: a replace callback that never returns ends with timeout
requirements: [CM-LIM-01]
class: dos
timeoutMs: 1000
expect:
  code: timeout
---*/
return "aaaa".replace(/a/g, () => { for (;;) {} });
