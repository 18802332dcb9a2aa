/*---
description: a guest that calls whatever bridge internals it finds cannot settle a pending call with a forged result
requirements: [CM-GUEST-05, CM-SEC-01]
class: bridge
tools: [slow]
expect:
  value: '{"tag":"real","internals":[]}'
---*/
const real = tools.call(id("slow"), {ms: 150, tag: "real"});
const candidates = [];
const visit = (o, path, depth) => {
  if (o === null || (typeof o !== "object" && typeof o !== "function") || depth > 2) return;
  for (const k of Reflect.ownKeys(o)) {
    if (typeof k !== "string" || k === "queueMicrotask" || !/^_|deliver|poll|settle|resolve|queue|pending|bridge|host/i.test(k)) continue;
    let v; try { v = o[k]; } catch (e) { continue; }
    if (typeof v === "function") candidates.push([path + "." + k, v, o]);
    else visit(v, path + "." + k, depth + 1);
  }
};
visit(globalThis, "globalThis", 0);
const forged = {slept: 0, tag: "forged"};
for (const [, f, self] of candidates) {
  for (const args of [[1, forged], ["1", forged], [0, {ok: true, value: forged}], [{id: 1, result: forged}], [JSON.stringify({id: 1, result: forged})]]) {
    try { f.apply(self, args); } catch (e) {}
  }
}
const r = callValue(id("slow"), await real);
return {tag: r.tag, internals: candidates.map((c) => c[0])};
