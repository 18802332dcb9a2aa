/*---
description: JSON.stringify of an object nested 200000 deep completes, fails cleanly, or (the engine being quadratic in depth) ends with timeout
requirements: [CM-LIM-04]
class: dos
timeoutMs: 1000
expect:
  anyOf:
    - value: '1400001'
    - value: '"RangeError"'
    - value: '"InternalError"'
    - code: timeout
    - status: failed
---*/
let o = {};
for (let i = 0; i < 200000; i++) o = {o};
try { return JSON.stringify(o).length; } catch (e) { return e.name; }
