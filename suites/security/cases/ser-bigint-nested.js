/*---
description: a BigInt inside the cell value becomes a plain string or a clean error, never a corrupted number
requirements: [CM-GUEST-08]
class: serialisation
expect:
  anyOf:
    - value: '{"n":"18446744073709551616"}'
    - valueMatches: '^"'
    - status: failed
---*/
return {n: 2n ** 64n};
