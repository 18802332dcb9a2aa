/*---
description: the Function constructor builds functions in the guest realm only; no host global is reachable through it
requirements: [CM-SEC-01]
class: escape
expect:
  value: '["string","undefined"]'
---*/
const names = ["process", "require", "std", "os", "Deno", "Bun", "Buffer", "scriptArgs", "fetch", "WebAssembly"];
const F = Function, AF = (async () => {}).constructor, GF = (function* () {}).constructor;
const seen = new Set();
for (const n of names) {
  seen.add(F("return typeof " + n)());
  seen.add(typeof (await AF("return typeof " + n)()));
  seen.add(typeof GF("yield typeof " + n)().next().value);
}
return [...seen].sort();
