/*---
description: JSON.parse of arrays nested a million deep fails cleanly or parses; the runtime keeps serving
requirements: [CM-LIM-04]
class: dos
expect:
  anyOf:
    - value: '"parsed"'
    - value: '"RangeError"'
    - value: '"SyntaxError"'
    - value: '"InternalError"'
    - status: failed
---*/
const n = 1000000;
try { const v = JSON.parse("[".repeat(n) + "]".repeat(n)); return Array.isArray(v) ? "parsed" : "odd"; }
catch (e) { return e.name; }
