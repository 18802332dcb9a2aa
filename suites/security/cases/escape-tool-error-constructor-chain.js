/*---
description: a host error's constructor chain ends in the guest's own Function, which reaches no host global
requirements: [CM-SEC-02, CM-GUEST-10]
class: escape
tools: [fail]
expect:
  value: '{"guestFunction":true,"process":"undefined","protoFunction":true,"hostFunctions":[]}'
---*/
let err;
try { await call("fail", {message: "boom"}); } catch (e) { err = e; }
const chain = [];
for (let o = err, i = 0; o !== null && o !== undefined && i < 6; o = Object.getPrototypeOf(o), i++) {
  chain.push(o === Object.prototype ? "Object.prototype" : o === Error.prototype ? "Error.prototype" : typeof o);
}
return {
  guestFunction: err.constructor.constructor === Function,
  process: err.constructor.constructor("return typeof process")(),
  protoFunction: Object.getPrototypeOf(err).constructor.constructor === Function,
  hostFunctions: Object.getOwnPropertyNames(err).filter((k) => typeof err[k] === "function"),
};
