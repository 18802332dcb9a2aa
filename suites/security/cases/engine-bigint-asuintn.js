/*---
description: BigInt.asUintN and asIntN at their edges (64 bits, 0 bits, 128 bits, negative inputs) do not trap the engine; their arithmetic is not judged (no requirement asks for it)
requirements: [CM-SEC-04]
class: engine
expect:
  status: completed
---*/
return [BigInt.asUintN(64, -1n), BigInt.asIntN(64, 2n ** 63n), BigInt.asUintN(0, 5n), BigInt.asIntN(1, 1n), BigInt.asUintN(128, -(2n ** 127n))].map(String);
