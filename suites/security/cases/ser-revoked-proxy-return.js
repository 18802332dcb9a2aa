/*---
description: a revoked proxy as the cell value gives a clean error or a plain string
requirements: [CM-GUEST-08]
class: serialisation
expect:
  anyOf:
    - valueMatches: '^"'
    - status: failed
---*/
const {proxy, revoke} = Proxy.revocable({a: 1}, {});
revoke();
return proxy;
