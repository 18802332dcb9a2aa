/*---
description: a valueOf that shrinks the buffer during fill leaves the view bounded by its new length
requirements: [CM-SEC-04]
class: engine
expect:
  anyOf:
    - value: '[7,7]'
    - value: '"TypeError"'
---*/
const b = new ArrayBuffer(8, {maxByteLength: 8});
const u = new Uint8Array(b);
try { u.fill({valueOf() { b.resize(2); return 7; }}); } catch (e) { return e.name; }
return Array.from(u);
