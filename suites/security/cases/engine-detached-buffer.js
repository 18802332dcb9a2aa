/*---
description: a typed array over a transferred (detached) buffer has length 0 and reads undefined
requirements: [CM-SEC-04]
class: engine
expect:
  value: '{"len":0,"read":true,"detached":true,"movedFirst":9,"movedLen":8}'
---*/
const b = new ArrayBuffer(8);
const u = new Uint8Array(b);
u[0] = 9;
const moved = b.transfer();
u[1] = 5;
return {len: u.length, read: u[0] === undefined, detached: b.detached, movedFirst: new Uint8Array(moved)[0], movedLen: moved.byteLength};
