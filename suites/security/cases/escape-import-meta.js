/*---
description: import.meta is refused with module_access_denied
requirements: [CM-EXEC-04]
class: escape
expect:
  code: module_access_denied
---*/
return String(import.meta.url);
