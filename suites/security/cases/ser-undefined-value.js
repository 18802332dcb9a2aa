/*---
description: an undefined cell value becomes null, a plain string or a clean error
requirements: [CM-GUEST-08]
class: serialisation
expect:
  anyOf:
    - value: 'null'
    - valueMatches: '^"'
    - status: failed
---*/
return undefined;
