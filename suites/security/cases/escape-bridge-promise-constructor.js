/*---
description: a promise the bridge returns belongs to the guest realm
requirements: [CM-SEC-02]
class: escape
tools: [echo]
expect:
  value: '{"guestPromise":true,"fn":true}'
---*/
const p = dispatch("echo", {});
const out = {guestPromise: p instanceof Promise, fn: p.constructor.constructor === Function};
await p;
return out;
