/*---
description: "a cyclic cell value becomes a plain string at the cycle (the rest of the value intact) or a clean error"
requirements: [CM-GUEST-08]
class: serialisation
expect:
  anyOf:
    - valueMatches: '^\{\s*"name"\s*:\s*"a"\s*,\s*"self"\s*:\s*"[^"]*"\s*\}$'
    - status: failed
---*/
const a = {name: "a"};
a.self = a;
return a;
