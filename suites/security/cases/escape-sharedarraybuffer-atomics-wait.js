/*---
description: "Atomics.wait cannot block the runtime: it throws, or the cell ends with timeout"
requirements: [CM-LIM-01, CM-SEC-01]
class: escape
timeoutMs: 1000
expect:
  anyOf:
    - value: '"threw"'
    - code: timeout
---*/
try {
  const sab = new SharedArrayBuffer(16);
  const r = Atomics.wait(new Int32Array(sab), 0, 0, 60000);
  return "returned " + r;
} catch (e) {
  return "threw";
}
