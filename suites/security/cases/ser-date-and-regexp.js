/*---
description: a Date crosses through its toJSON and a RegExp as {}
requirements: [CM-GUEST-08]
class: serialisation
expect:
  value: '{"d":"1970-01-01T00:00:00.000Z","r":{},"m":{},"s":{}}'
---*/
return {d: new Date(0), r: /x/g, m: new Map([[1, 2]]), s: new Set([1])};
