/*---
description: indirect eval runs in the guest's global scope and finds no host global
requirements: [CM-SEC-01]
class: escape
expect:
  value: '[]'
---*/
const g = (0, eval)("this");
const bad = ["process", "require", "std", "os", "Buffer", "scriptArgs", "WebAssembly", "fetch"];
return bad.filter((n) => n in g || (0, eval)("typeof " + n) !== "undefined");
