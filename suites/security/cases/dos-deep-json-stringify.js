/*---
description: JSON.stringify of an object nested 200000 deep fails cleanly or completes
requirements: [CM-LIM-04]
class: dos
expect:
  anyOf:
    - value: '1400001'
    - value: '"RangeError"'
    - value: '"InternalError"'
    - status: failed
---*/
let o = {};
for (let i = 0; i < 200000; i++) o = {o};
try { return JSON.stringify(o).length; } catch (e) { return e.name; }
