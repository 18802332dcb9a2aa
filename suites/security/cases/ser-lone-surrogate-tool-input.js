/*---
description: a lone surrogate in a tool input reaches the tool as U+FFFD
requirements: [CM-EXEC-21]
class: serialisation
tools: [echo]
expect:
  value: '{"s":true,"k":true}'
---*/
const r = (await call("echo", {s: "x\uD800", ["k\uDFFF"]: 1}));
return {s: r.s === "x\uFFFD", k: Object.keys(r).includes("k\uFFFD")};
