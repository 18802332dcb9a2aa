/*---
description: a cyclic cell value becomes a plain string (at the cycle or whole) or a clean error
requirements: [CM-GUEST-08]
class: serialisation
expect:
  anyOf:
    - valueMatches: '^\{"name":"a","self":"[^"]*"\}$'
    - valueMatches: '^"'
    - status: failed
---*/
const a = {name: "a"};
a.self = a;
return a;
