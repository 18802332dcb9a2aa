/*---
description: "a BigInt in a tool input is a catchable error, a failed cell, or a plain string that names no digits or exactly the BigInt's decimal ones"
requirements: [CM-GUEST-08]
class: serialisation
tools: [echo]
expect:
  anyOf:
    - value: '"rejected"'
    - valueMatches: '^"[^0-9"]*(12345678901234567890[^0-9"]*)?"$'
    - status: failed
---*/
try { const r = (await call("echo", {n: 12345678901234567890n})); return typeof r.n === "string" ? r.n : {notAString: r.n}; } catch (e) { return "rejected"; }
