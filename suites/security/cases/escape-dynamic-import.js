/*---
description: dynamic import() of a host module fails with module_access_denied before anything runs
requirements: [CM-EXEC-04, CM-SEC-01]
class: escape
expect:
  code: module_access_denied
---*/
const fs = await import("fs");
return typeof fs.readFileSync;
