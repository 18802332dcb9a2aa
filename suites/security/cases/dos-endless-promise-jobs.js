/*---
description: a chain of promise jobs that never ends (each job queues the next) ends with timeout
requirements: [CM-LIM-01]
class: dos
timeoutMs: 1000
expect:
  anyOf:
    - code: timeout
    - code: memory_limit_exceeded
---*/
let n = 0;
const spin = () => { n++; return Promise.resolve().then(spin); };
await spin();
return n;
