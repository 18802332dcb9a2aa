/*---
description: a guest that wraps whatever bridge internals it finds, learns the real request ids through them and calls them with forged results cannot make tools.call resolve with anything but the tool's result
requirements: [CM-GUEST-05]
class: bridge
tools: [slow]
expect:
  value: '{"tag":"real"}'
---*/
// Functions reachable from globalThis under bridge-like names (two levels deep).
const candidates = [];
const visit = (o, path, depth) => {
  if (o === null || (typeof o !== "object" && typeof o !== "function") || depth > 2) return;
  for (const k of Reflect.ownKeys(o)) {
    if (typeof k !== "string" || k === "queueMicrotask" || !/^_|deliver|poll|settle|resolve|queue|pending|bridge|host/i.test(k)) continue;
    let v; try { v = o[k]; } catch (e) { continue; }
    if (typeof v === "function") candidates.push({path: path + "." + k, f: v, owner: o, key: k});
    else visit(v, path + "." + k, depth + 1);
  }
};
visit(globalThis, "globalThis", 0);
// A runtime that sends its requests through a writable function hands the
// real request ids to a wrapper (page 000 lists such __openclaw* globals):
// record everything each candidate is given and returns.
const seen = [];
for (const c of candidates) {
  const f = c.f;
  try {
    c.owner[c.key] = function (...args) { const r = Reflect.apply(f, this, args); seen.push(r, ...args); return r; };
  } catch (e) {}
}
const real = tools.call(id("slow"), {ms: 150, tag: "real"});
const ids = new Set([1, "1", 0]);
for (const v of seen) if (typeof v === "number" || (typeof v === "string" && v.length <= 64)) ids.add(v);
const forged = {slept: 0, tag: "forged"};
for (const c of candidates) {
  for (const i of ids) {
    for (const args of [[i, forged], [i, true, JSON.stringify(forged)], [i, true, forged], [i, {ok: true, value: forged}], [{id: i, result: forged}], [JSON.stringify({id: i, result: forged})]]) {
      try { Reflect.apply(c.f, c.owner, args); } catch (e) {}
    }
  }
}
const r = callValue(id("slow"), await real);
return {tag: r.tag};
