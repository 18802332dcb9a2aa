/*---
description: three hundred sequential calls complete within the cell without a limit failure
requirements: [CM-NEST-04, CM-EXEC-15]
class: bridge
tools: [add]
timeoutMs: 20000
expect:
  value: '45150'
---*/
let sum = 0;
for (let i = 0; i < 300; i++) sum += (await call("add", {a: i, b: 1})).sum;
return sum;
