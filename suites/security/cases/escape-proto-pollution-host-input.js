/*---
description: polluting Object.prototype and Array.prototype does not change what a tool receives
requirements: [CM-GUEST-11, CM-SEC-01]
class: escape
tools: [echo]
expect:
  value: '["list","0","1"]'
---*/
Object.prototype.polluted = "yes";
Object.prototype.toJSON = undefined;
Array.prototype.extra = "yes";
Object.defineProperty(Object.prototype, "admin", {get() { return true; }, enumerable: true, configurable: true});
const r = (await call("echo", {list: [1, 2]}));
delete Object.prototype.polluted; delete Object.prototype.toJSON; delete Array.prototype.extra; delete Object.prototype.admin;
return Object.keys(r).concat(Object.keys(r.list));
