/*---
description: the bridge's own functions (tools.call, text, json) lead only to the guest's Function
requirements: [CM-SEC-01, CM-SEC-02]
class: escape
expect:
  value: '["undefinedundefinedundefined"]'
---*/
const fns = [tools.call, tools.search, tools.describe, text, json, yield_control].filter((f) => typeof f === "function");
return [...new Set(fns.map((f) => f.constructor === Function || f.constructor === (async () => {}).constructor
  ? f.constructor("return typeof process + typeof require + typeof std")() : "foreign"))];
