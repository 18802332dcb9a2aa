/*---
description: a polluted Object.prototype setter does not see or change tool results on their way in
requirements: [CM-GUEST-11]
class: escape
tools: [echo]
expect:
  value: '{"own":"hello","seen":[]}'
---*/
const seen = [];
Object.defineProperty(Object.prototype, "message", {set(v) { seen.push(v); }, get() { return "polluted"; }, configurable: true});
const r = (await call("echo", {message: "hello"}));
const own = Object.getOwnPropertyDescriptor(r, "message");
delete Object.prototype.message;
return {own: own ? own.value : null, seen};
