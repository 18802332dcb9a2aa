/*---
description: a module load hidden from the source text (built at run time and evaluated) loads nothing
requirements: [CM-SEC-01, CM-EXEC-04]
class: escape
expect:
  anyOf:
    - value: '"refused"'
    - code: module_access_denied
---*/
const kw = ["im", "port"].join("");
try {
  const m = await (0, eval)(kw + '("os")');
  return "loaded " + typeof m;
} catch (e) {
  return "refused";
}
