/*---
description: eighteen sequential calls, more than maxPendingToolCalls in all but one at a time, complete without a limit failure
requirements: [CM-NEST-04]
class: bridge
tools: [add]
timeoutMs: 20000
expect:
  value: '171'
---*/
let sum = 0;
for (let i = 0; i < 18; i++) sum += (await call("add", {a: i, b: 1})).sum;
return sum;
