/*---
description: "WebAssembly is absent or inert: no module can be compiled or instantiated"
requirements: [CM-SEC-01]
class: escape
expect:
  anyOf:
    - value: '"absent"'
    - value: '"inert"'
---*/
if (typeof WebAssembly === "undefined") return "absent";
try {
  const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);
  const m = await WebAssembly.instantiate(bytes, {});
  return "instantiated " + typeof m;
} catch (e) {
  return "inert";
}
