/*---
description: a comparator that shrinks a resizable buffer during TypedArray sort leaves a consistent, bounded view
requirements: [CM-SEC-04]
class: engine
expect:
  anyOf:
    - value: '{"len":2,"values":[1,2]}'
    - valueMatches: '^\{"len":2,"values":\[\d+,\d+\]\}$'
---*/
const b = new ArrayBuffer(64, {maxByteLength: 64});
const u = new Int32Array(b);
for (let i = 0; i < 16; i++) u[i] = 16 - i;
u.sort((x, y) => { if (b.byteLength > 8) b.resize(8); return x - y; });
return {len: u.length, values: Array.from(u)};
