/*---
description: "a BigInt64Array or BigUint64Array (JSON.stringify throws on its BigInt elements) becomes plain strings or a clean error, never a wrong number: -1n stays -1, 2^64-1 stays 18446744073709551615"
requirements: [CM-GUEST-08]
class: serialisation
expect:
  anyOf:
    - value: '{"i":{"0":"-1"},"u":{"0":"18446744073709551615"}}'
    - valueMatches: '^"[^0-9"]*"$'
    - valueMatches: '^\{\s*"i"\s*:\s*"[^0-9"]*"\s*,\s*"u"\s*:\s*"[^0-9"]*"\s*\}$'
    - status: failed
---*/
return {i: new BigInt64Array([-1n]), u: new BigUint64Array([2n ** 64n - 1n])};
