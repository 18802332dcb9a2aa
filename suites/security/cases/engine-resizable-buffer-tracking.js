/*---
description: a length-tracking typed array follows its resizable buffer down and up
requirements: [CM-SEC-04, CM-SEC-01]
class: engine
expect:
  value: '{"shrunk":[4,true,4],"grown":[12,0,7]}'
---*/
const b = new ArrayBuffer(8, {maxByteLength: 16});
const u = new Uint8Array(b);
u.fill(7);
b.resize(4);
const shrunk = [u.length, u[5] === undefined, u.byteLength];
b.resize(12);
return {shrunk, grown: [u.length, u[4], u[3]]};
