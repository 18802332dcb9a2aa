/*---
description: "a BigInt inside the cell value becomes a plain string in its place or a clean error, never a corrupted number or a corrupted object: the string names no digits or exactly the BigInt's decimal ones"
requirements: [CM-GUEST-08]
class: serialisation
expect:
  anyOf:
    - valueMatches: '^\{\s*"n"\s*:\s*"[^0-9"]*(18446744073709551616[^0-9"]*)?"\s*\}$'
    - status: failed
---*/
return {n: 2n ** 64n};
