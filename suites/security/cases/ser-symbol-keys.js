/*---
description: symbol-keyed properties are left out of the value, as JSON leaves them
requirements: [CM-GUEST-08]
class: serialisation
expect:
  value: '{"visible":3}'
---*/
return {[Symbol("hidden")]: 1, [Symbol.iterator]: 2, visible: 3};
