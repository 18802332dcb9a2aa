/*---
description: a BigInt in a tool input is a catchable error, a string or a failed cell
requirements: [CM-GUEST-08]
class: serialisation
tools: [echo]
expect:
  anyOf:
    - value: '"rejected"'
    - value: '"string"'
    - status: failed
---*/
try { const r = (await call("echo", {n: 10n})); return typeof r.n; } catch (e) { return "rejected"; }
