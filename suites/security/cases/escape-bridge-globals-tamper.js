/*---
description: overwriting the guest's globals (JSON, Promise, Object.keys) breaks at most the guest's own cell
requirements: [CM-SEC-04, CM-GUEST-11]
class: escape
tools: [echo]
expect:
  anyOf:
    - status: completed
    - status: failed
---*/
JSON.stringify = () => '{"forged":true}';
JSON.parse = () => ({forged: true});
Object.keys = () => ["forged"];
Promise.prototype.then = function () { return this; };
const r = await call("echo", {real: true});
return r;
