/*---
description: a flood of microtasks that doubles each turn ends with timeout or memory_limit_exceeded
requirements: [CM-LIM-01, CM-LIM-02]
class: dos
timeoutMs: 1000
expect:
  anyOf:
    - code: timeout
    - code: memory_limit_exceeded
---*/
const boom = () => { queueMicrotask(boom); queueMicrotask(boom); };
if (typeof queueMicrotask !== "function") globalThis.queueMicrotask = (f) => Promise.resolve().then(f);
boom();
await new Promise(() => {});
