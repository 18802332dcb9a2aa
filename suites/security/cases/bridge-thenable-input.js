/*---
description: "a thenable tool input is sent as plain data: its then is never called by the bridge"
requirements: [CM-GUEST-11, CM-GUEST-08]
class: bridge
tools: [echo]
expect:
  anyOf:
    - value: '{"a":1,"then":"left out","called":false}'
    - value: '{"a":1,"then":"string","called":false}'
---*/
let called = false;
const r = (await call("echo", {then() { called = true; }, a: 1}));
return {a: r.a, then: r.then === undefined ? "left out" : typeof r.then, called};
