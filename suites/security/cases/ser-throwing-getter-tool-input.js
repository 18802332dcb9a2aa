/*---
description: a throwing getter in a tool input becomes a plain string, a catchable error or a failed cell
requirements: [CM-GUEST-08]
class: serialisation
tools: [echo]
expect:
  anyOf:
    - value: '"rejected"'
    - value: '"sent string"'
    - status: failed
---*/
try { const r = (await call("echo", {get bad() { throw new Error("getter boom"); }})); return "sent " + typeof r.bad; }
catch (e) { return "rejected"; }
