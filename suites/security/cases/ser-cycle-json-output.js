/*---
description: a cyclic value given to json() becomes a plain string or a clean error
requirements: [CM-GUEST-08, CM-GUEST-07]
class: serialisation
expect:
  anyOf:
    - value: '"after"'
    - status: failed
---*/
const a = {};
a.a = a;
json(a);
return "after";
