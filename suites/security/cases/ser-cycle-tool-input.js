/*---
description: a cyclic tool input becomes a plain string at the cycle, a catchable error or a failed cell
requirements: [CM-GUEST-08]
class: serialisation
tools: [echo]
expect:
  anyOf:
    - value: '"rejected true"'
    - value: '"sent string"'
    - status: failed
---*/
const a = [];
a.push(a);
try { const r = (await call("echo", {a})); return "sent " + typeof r.a[0]; }
catch (e) { return "rejected " + (e instanceof Error || typeof e === "object"); }
