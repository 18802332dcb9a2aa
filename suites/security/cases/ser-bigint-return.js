/*---
description: "a BigInt cell value becomes a plain string or a clean error, never a wrong number: a string names no digits or exactly the BigInt's decimal ones"
requirements: [CM-GUEST-08]
class: serialisation
expect:
  anyOf:
    - valueMatches: '^"[^0-9"]*(12345678901234567890[^0-9"]*)?"$'
    - status: failed
---*/
return 12345678901234567890n;
