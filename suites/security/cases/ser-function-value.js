/*---
description: a function cell value becomes a plain string or a clean error
requirements: [CM-GUEST-08]
class: serialisation
expect:
  anyOf:
    - valueMatches: '^"'
    - status: failed
---*/
return function secret() { return 1; };
