/*---
description: an infinite loop in a toJSON the bridge calls while encoding a tool input ends with timeout
requirements: [CM-LIM-01]
class: dos
tools: [echo]
timeoutMs: 1000
expect:
  code: timeout
---*/
await call("echo", {toJSON() { for (;;) {} }});
return "sent";
