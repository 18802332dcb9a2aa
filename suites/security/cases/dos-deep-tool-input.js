/*---
description: a tool input nested 100000 deep is a catchable error or a failed cell, or arrives whole; it is never cut silently
requirements: [CM-LIM-04, CM-LIM-07]
class: dos
tools: [echo]
expect:
  anyOf:
    - value: '"rejected"'
    - value: '"whole"'
    - status: failed
---*/
let o = {};
for (let i = 0; i < 100000; i++) o = {o};
let r;
try { r = (await call("echo", o)); } catch (e) { return "rejected"; }
let d = 0;
while (r !== null && typeof r === "object" && "o" in r) { d++; r = r.o; }
return d === 100000 ? "whole" : "cut at " + d + ": " + JSON.stringify(r);
