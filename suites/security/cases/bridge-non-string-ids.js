/*---
description: ids that are objects, arrays or numbers converting to a denied id are refused
requirements: [CM-GUEST-05]
class: bridge
tools: [echo, denied]
expect:
  value: '[]'
---*/
const sneaky = [{toString() { return "plugin:vault:wipe_disk"; }}, ["plugin:vault:wipe_disk"], new String("plugin:vault:wipe_disk"), 42, null, undefined];
const reached = [];
for (const g of sneaky) { try { await tools.call(g, {}); reached.push(String(g)); } catch (e) {} }
return reached;
