/*---
description: "a tool result larger than memoryLimitBytes never reaches the guest: a rejection it can catch or a failed cell"
requirements: [CM-LIM-07]
class: bridge
tools: [big]
memoryLimitBytes: 4194304
expect:
  anyOf:
    - value: '"rejected"'
    - status: failed
---*/
try {
  const r = (await call("big", {size: 5 * 1024 * 1024}));
  return "delivered " + r.length;
} catch (e) {
  return "rejected";
}
