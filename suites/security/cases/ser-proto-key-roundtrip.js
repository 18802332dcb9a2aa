/*---
description: a __proto__ key crosses the bridge as an own data property and pollutes nothing
requirements: [CM-GUEST-11, CM-SEC-01]
class: serialisation
tools: [echo]
expect:
  value: '{"own":["__proto__","a"],"inner":"{\"polluted\":true}","polluted":"no","protoOfResult":true}'
---*/
const input = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
const r = (await call("echo", input));
return {own: Object.keys(r).sort(), inner: r.__proto__ === Object.prototype ? "prototype" : JSON.stringify(Object.getOwnPropertyDescriptor(r, "__proto__") && r["__proto__"]),
  polluted: ({}).polluted === undefined ? "no" : "yes", protoOfResult: Object.getPrototypeOf(r) === Object.prototype};
