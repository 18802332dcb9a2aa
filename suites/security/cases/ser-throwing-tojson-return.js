/*---
description: a throwing toJSON in the cell value gives a clean error or a plain string
requirements: [CM-GUEST-08]
class: serialisation
expect:
  anyOf:
    - valueMatches: '^"'
    - status: failed
---*/
return {toJSON() { throw new TypeError("toJSON boom"); }};
