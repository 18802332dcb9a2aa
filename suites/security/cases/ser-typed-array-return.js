/*---
description: "a typed array value is not binary data: it crosses as JSON.stringify gives it, as a string or as a clean error"
requirements: [CM-GUEST-08]
class: serialisation
expect:
  anyOf:
    - value: '{"0":1,"1":2,"2":255}'
    - valueMatches: '^"'
    - status: failed
---*/
return new Uint8Array([1, 2, 255]);
