/*---
description: a tool result nested 4140 deep reaches the guest intact, or fails cleanly (the guest catches an error, or the cell fails)
requirements: [CM-LIM-04, CM-LIM-07]
class: dos
tools: [deep]
expect:
  anyOf:
    - value: '4140'
    - valueMatches: '^"rejected: '
    - status: failed
---*/
let r;
try { r = (await call("deep", {depth: 4140})); }
catch (e) { return "rejected: " + String(e && e.message); }
let d = 0;
while (Array.isArray(r)) { d++; r = r[0]; }
return d;
