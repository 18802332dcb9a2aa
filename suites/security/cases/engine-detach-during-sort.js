/*---
description: a comparator that detaches the buffer during TypedArray sort cannot write out of bounds
requirements: [CM-SEC-04]
class: engine
expect:
  anyOf:
    - value: '{"len":0,"detached":true}'
    - value: '"threw TypeError"'
---*/
const b = new ArrayBuffer(64);
const u = new Int32Array(b);
for (let i = 0; i < 16; i++) u[i] = 16 - i;
let once = false;
try { u.sort((x, y) => { if (!once) { once = true; b.transfer(); } return x - y; }); } catch (e) { return "threw " + e.name; }
return {len: u.length, detached: b.detached};
