/*---
description: pushing a denied tool into ALL_TOOLS and redefining tools.call gives no access to it
requirements: [CM-GUEST-05, CM-GUEST-12]
class: bridge
tools: [echo, denied]
expect:
  value: 'false'
---*/
try { ALL_TOOLS.push({id: "plugin:vault:wipe_disk", name: "wipe_disk", source: "plugin"}); } catch (e) {}
const orig = tools.call;
try { tools.call = (i, x) => orig(i, x); } catch (e) {}
let reached = false;
try { await tools.call("plugin:vault:wipe_disk", {}); reached = true; } catch (e) {}
try { await orig.call(null, "plugin:vault:wipe_disk", {}); reached = true; } catch (e) {}
return reached;
