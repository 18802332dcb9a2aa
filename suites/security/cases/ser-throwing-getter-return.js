/*---
description: a throwing getter in the cell value gives a plain string (for the member or the whole value) or a clean error
requirements: [CM-GUEST-08]
class: serialisation
expect:
  anyOf:
    - valueMatches: '^\{"ok":1,"bad":"[^"]*"\}$'
    - valueMatches: '^"'
    - status: failed
---*/
return {ok: 1, get bad() { throw new Error("getter boom"); }};
