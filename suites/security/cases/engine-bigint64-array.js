/*---
description: BigInt64Array and BigUint64Array store values modulo 2^64
requirements: [CM-SEC-04]
class: engine
expect:
  value: '["18446744073709551615","-9223372036854775808","9223372036854775808"]'
---*/
const a = new BigInt64Array(2), b = new BigUint64Array(a.buffer);
a[0] = -1n; a[1] = 2n ** 63n;
return [b[0], a[1], b[1]].map(String);
