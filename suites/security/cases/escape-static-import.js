/*---
description: a static import declaration fails with module_access_denied
requirements: [CM-EXEC-04]
class: escape
expect:
  code: module_access_denied
---*/
import * as os from "os";
return typeof os.exec;
