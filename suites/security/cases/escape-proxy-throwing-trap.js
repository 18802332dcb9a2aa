/*---
description: a Proxy input whose ownKeys trap throws becomes a plain string, a catchable error or a failed cell, never a host exception
requirements: [CM-GUEST-08, CM-SEC-02]
class: escape
tools: [echo]
expect:
  anyOf:
    - value: '"threw true"'
    - value: '"sent string"'
    - status: failed
---*/
try {
  const r = (await call("echo", {p: new Proxy({}, {ownKeys() { throw new Error("trap"); }})}));
  return "sent " + typeof r.p;
} catch (e) {
  return "threw " + (e instanceof Error);
}
