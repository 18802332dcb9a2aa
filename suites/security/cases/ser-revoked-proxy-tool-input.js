/*---
description: a revoked proxy in a tool input becomes a plain string, a catchable error or a failed cell
requirements: [CM-GUEST-08]
class: serialisation
tools: [echo]
expect:
  anyOf:
    - value: '"rejected"'
    - value: '"sent string"'
    - status: failed
---*/
const {proxy, revoke} = Proxy.revocable({a: 1}, {});
revoke();
try { const r = (await call("echo", {p: proxy})); return "sent " + typeof r.p; } catch (e) { return "rejected"; }
