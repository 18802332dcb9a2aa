/*---
description: a __proto__ own key in the cell value reaches the host as a key
requirements: [CM-GUEST-08, CM-EXEC-06]
class: serialisation
expect:
  value: '{"__proto__":{"x":1},"constructor":{"prototype":{"y":2}}}'
---*/
return JSON.parse('{"__proto__": {"x": 1}, "constructor": {"prototype": {"y": 2}}}');
