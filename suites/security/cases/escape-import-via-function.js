/*---
description: a module load built with the Function constructor loads nothing
requirements: [CM-SEC-01, CM-EXEC-04]
class: escape
expect:
  anyOf:
    - value: '"refused"'
    - code: module_access_denied
---*/
const kw = ["im", "port"].join("");
try {
  const m = await Function("return " + kw + '("std")')();
  return "loaded " + typeof m;
} catch (e) {
  return "refused";
}
