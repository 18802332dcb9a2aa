/*---
description: no spelling of a denied tool's id reaches it
requirements: [CM-GUEST-05]
class: bridge
tools: [echo, denied]
expect:
  value: '{"reached":[],"listed":0,"found":0}'
---*/
const guesses = ["plugin:vault:wipe_disk", "wipe_disk", "vault:wipe_disk", "PLUGIN:VAULT:WIPE_DISK", " plugin:vault:wipe_disk",
  "plugin:vault:wipe_disk\u0000", "openclaw:core:wipe_disk", "plugin:vault:wipe_disk ", "plugin/vault/wipe_disk"];
const reached = [];
for (const g of guesses) {
  try { await tools.call(g, {}); reached.push(g); } catch (e) {}
  try { await tools.describe(g); reached.push("describe " + g); } catch (e) {}
}
const listed = ALL_TOOLS.filter((t) => /wipe/.test(t.name + t.id)).length;
const found = (await tools.search("wipe disk erase", {limit: 50})).filter((t) => /wipe/.test(t.name + t.id)).length;
return {reached, listed, found};
