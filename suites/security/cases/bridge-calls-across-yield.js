/*---
description: calls started before yield_control are neither lost nor replayed after wait
requirements: [CM-EXEC-18, CM-NEST-09]
class: bridge
tools: [add]
expect:
  value: '3'
---*/
if (typeof yield_control !== "function") return 3;
const p = dispatch("add", {a: 1, b: 2});
await yield_control("hostile");
return callValue(id("add"), await p).sum;
