/*---
description: the bridge's internals (queues, poll and deliver functions) are not reachable from guest globals
requirements: [CM-SEC-01, CM-GUEST-05]
class: escape
expect:
  value: '[]'
---*/
const std = new Set(["ALL_TOOLS", "tools", "MCP", "namespaces", "text", "json", "yield_control", "API", "console"]);
const found = [];
for (const k of Object.getOwnPropertyNames(globalThis)) {
  if (!/^_|codemode|bridge|host|deliver|poll|queue|pending/i.test(k) || std.has(k) || k === "queueMicrotask") continue;
  found.push(k);
}
for (const o of [tools, typeof API === "function" ? API : {}]) {
  for (const k of Reflect.ownKeys(o)) if (typeof k === "string" && /deliver|poll|queue|pending|settle|resolve|__/i.test(k)) found.push("tools." + k);
}
return found;
