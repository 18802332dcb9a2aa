/*---
description: a Proxy given as tool input has its traps run in the guest and reaches the tool as a plain copy
requirements: [CM-GUEST-11, CM-SEC-01]
class: escape
tools: [echo]
expect:
  value: '{"r":{"a":1},"isProxyFree":true,"trappedSomething":true}'
---*/
const trapped = [];
const p = new Proxy({a: 1}, {
  get(t, k, r) { trapped.push(typeof k === "string" ? k : "symbol"); return Reflect.get(t, k, r); },
  ownKeys(t) { trapped.push("ownKeys"); return Reflect.ownKeys(t); },
});
const r = (await call("echo", p));
return {r, isProxyFree: Object.getPrototypeOf(r) === Object.prototype, trappedSomething: trapped.length > 0};
