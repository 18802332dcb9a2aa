/*---
description: a fixed-length view past a shrunk buffer reads nothing and writes nothing
requirements: [CM-SEC-04]
class: engine
expect:
  value: '{"len":0,"byteLength":0,"byteOffset":0,"read":true,"dv":"RangeError","bufLen":4}'
---*/
const b = new ArrayBuffer(16, {maxByteLength: 32});
const v = new Uint32Array(b, 8, 2);
b.resize(4);
v[0] = 1;
let dv;
try { new DataView(b, 8); dv = "made"; } catch (e) { dv = e.name; }
return {len: v.length, byteLength: v.byteLength, byteOffset: v.byteOffset, read: v[0] === undefined, dv, bufLen: b.byteLength};
