/*---
description: TypedArray set over an overlapping view copies as if through a temporary
requirements: [CM-SEC-04]
class: engine
expect:
  value: '{"u":[1,2,1,2,3,4],"f":0}'
---*/
const u = new Uint8Array([1, 2, 3, 4, 5, 6]);
u.set(u.subarray(0, 4), 2);
const f = new Float64Array(u.buffer, 0, 0);
return {u: Array.from(u), f: f.length};
