/*---
description: "an ArrayBuffer or DataView in a tool input is not binary data: it reaches the tool as {} or a plain string, or is refused cleanly"
requirements: [CM-GUEST-08]
class: serialisation
tools: [echo]
expect:
  anyOf:
    - value: '[true,true]'
    - value: '"rejected"'
    - status: failed
---*/
try {
  const r = (await call("echo", {b: new ArrayBuffer(8), d: new DataView(new ArrayBuffer(4))}));
  return [typeof r.b === "string" || JSON.stringify(r.b) === "{}", typeof r.d === "string" || JSON.stringify(r.d) === "{}"];
} catch (e) { return "rejected"; }
