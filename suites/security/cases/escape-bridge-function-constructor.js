/*---
description: the bridge's own functions (tools.call, text, json; catalog handles) lead only to the guest's Function
requirements: [CM-SEC-01, CM-SEC-02]
class: escape
expect:
  value: '["undefinedundefinedundefined"]'
---*/
// Each global only where the cell has it: 000's tools.*, text, json and yield_control, 001's catalog handles.
const T = typeof tools === "object" && tools !== null ? tools : {};
const C = typeof catalog === "object" && catalog !== null && typeof catalog.all === "function" ? catalog : null;
const fns = [T.call, T.search, T.describe, typeof text === "undefined" ? undefined : text, typeof json === "undefined" ? undefined : json,
  typeof yield_control === "undefined" ? undefined : yield_control, C && C.search, ...(C ? C.all().slice(0, 1) : [])].filter((f) => typeof f === "function");
// A handle may be an async function (001's catalog handles are on 2026.9.6):
// its constructor is the guest's AsyncFunction, whose built function returns
// a promise, so every outcome is awaited; the escape probed is the same.
const outcomes = await Promise.all(fns.map(async (f) => f.constructor === Function || f.constructor === (async () => {}).constructor
  ? await f.constructor("return typeof process + typeof require + typeof std")() : "foreign"));
return [...new Set(outcomes)];
