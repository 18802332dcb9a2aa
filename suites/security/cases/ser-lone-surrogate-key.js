/*---
description: a lone surrogate in an object key becomes U+FFFD
requirements: [CM-EXEC-21]
class: serialisation
expect:
  value: '{"\uFFFD":1}'
---*/
return {"\uDBFF": 1};
