/*---
description: "typed arrays of every kind and sign are not binary data: they cross as JSON.stringify gives them (index keys, signed and float values kept), or the whole value or each member is a plain string without digits, or a clean error; never unsigned bytes for signed values"
requirements: [CM-GUEST-08]
class: serialisation
expect:
  anyOf:
    - value: '{"i8":{"0":-1,"1":127,"2":-128},"u8":{"0":255},"c8":{"0":255,"1":0},"i16":{"0":-1,"1":-32768},"u16":{"0":65535},"i32":{"0":-1,"1":-2147483648},"u32":{"0":4294967295},"f32":{"0":-1.5,"1":0},"f64":{"0":-0.1,"1":null},"ab":{},"dv":{}}'
    - valueMatches: '^"[^0-9"]*"$'
    - valueMatches: '^\{(\s*"[a-z0-9]+"\s*:\s*"[^0-9"]*"\s*,?)+\}$'
    - status: failed
---*/
return {i8: new Int8Array([-1, 127, -128]), u8: new Uint8Array([255]), c8: new Uint8ClampedArray([300, -5]),
  i16: new Int16Array([-1, -32768]), u16: new Uint16Array([65535]), i32: new Int32Array([-1, -2147483648]),
  u32: new Uint32Array([4294967295]), f32: new Float32Array([-1.5, -0]), f64: new Float64Array([-0.1, NaN]),
  ab: new ArrayBuffer(4), dv: new DataView(new ArrayBuffer(2))};
