/*---
description: require() of a host module fails with module_access_denied
requirements: [CM-EXEC-04]
class: escape
expect:
  code: module_access_denied
---*/
const cp = require("child_process");
return typeof cp.execSync;
