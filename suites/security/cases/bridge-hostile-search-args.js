/*---
description: search and describe with hostile arguments resolve or reject cleanly
requirements: [CM-GUEST-03, CM-GUEST-04]
class: bridge
tools: [echo]
expect:
  value: 'true'
---*/
const out = [];
const tryIt = async (f) => { try { const r = await f(); out.push(Array.isArray(r) || (r && typeof r === "object") ? "ok" : typeof r); } catch (e) { out.push("rejected"); } };
await tryIt(() => tools.search("(a+)+$" + "a".repeat(10000), {limit: 5}));
await tryIt(() => tools.search("echo", {limit: -1}));
await tryIt(() => tools.search("echo", {limit: 1e12}));
await tryIt(() => tools.search("echo", {limit: NaN}));
await tryIt(() => tools.search({toString() { throw new Error("x"); }}));
await tryIt(() => tools.describe({toString() { return id("echo"); }}));
await tryIt(() => tools.describe("\uD800"));
return out.every((x) => x === "ok" || x === "rejected");
