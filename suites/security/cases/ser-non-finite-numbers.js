/*---
description: NaN, Infinity and -0 cross as JSON says (null, null, 0)
requirements: [CM-GUEST-08]
class: serialisation
expect:
  value: '[null,null,null,0]'
---*/
return [NaN, Infinity, -Infinity, -0];
