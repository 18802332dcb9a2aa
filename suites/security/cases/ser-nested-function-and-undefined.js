/*---
description: a function member becomes a plain string or is left out; an undefined member is left out
requirements: [CM-GUEST-08]
class: serialisation
expect:
  anyOf:
    - value: '{"k":1}'
    - valueMatches: '^\{"f":"[^"]*","k":1\}$'
    - status: failed
---*/
return {a: undefined, f() { return 1; }, k: 1};
