/*---
description: a hostile Symbol.species constructor cannot corrupt map or slice
requirements: [CM-SEC-04]
class: engine
expect:
  value: '["TypeError","TypeError","TypeError"]'
---*/
class Evil extends Array { static get [Symbol.species]() { return function () { return new Proxy([], {defineProperty() { return false; }}); }; } }
const e = Evil.from([1, 2, 3]);
const out = [];
for (const f of [() => e.map((x) => x * 2), () => e.slice(1), () => e.filter(() => true)]) {
  try { const r = f(); out.push(Array.from(r).length); } catch (x) { out.push(x.name); }
}
return out;
