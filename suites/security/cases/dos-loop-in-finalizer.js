/*---
description: a FinalizationRegistry callback that loops forever cannot outlive the cell's limits
requirements: [CM-LIM-01]
class: dos
timeoutMs: 1000
expect:
  anyOf:
    - value: '"done"'
    - code: timeout
---*/
const reg = new FinalizationRegistry(() => { for (;;) {} });
for (let i = 0; i < 2000; i++) reg.register({i, pad: new Array(64).fill(i)}, i);
let junk = [];
for (let i = 0; i < 200000; i++) { junk.push({i}); if (junk.length > 1000) junk = []; }
await Promise.resolve();
return "done";
