/*---
description: calls through a Proxy around the tools object still go through the bridge's checks
requirements: [CM-GUEST-05]
class: escape
tools: [echo, denied]
expect:
  value: '{"ok":{"via":"proxy"},"denied":"refused","trapped":true}'
---*/
const calls = [];
const pt = new Proxy(tools, {get(t, k) { calls.push(String(k)); return Reflect.get(t, k); }});
const ok = callValue(id("echo"), await pt.call(id("echo"), {via: "proxy"}));
let denied = "refused";
try { await pt.call("plugin:vault:wipe_disk", {}); denied = "reached"; } catch (e) {}
return {ok, denied, trapped: calls.includes("call")};
