/*---
description: BigInt.asUintN and asIntN wrap at 64 bits as the language says
requirements: [CM-SEC-04]
class: engine
expect:
  value: '["18446744073709551615","-9223372036854775808","0","-1","170141183460469231731687303715884105728"]'
---*/
return [BigInt.asUintN(64, -1n), BigInt.asIntN(64, 2n ** 63n), BigInt.asUintN(0, 5n), BigInt.asIntN(1, 1n), BigInt.asUintN(128, -(2n ** 127n))].map(String);
