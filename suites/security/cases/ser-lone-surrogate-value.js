/*---
description: a lone surrogate in the cell value becomes U+FFFD; a pair stays its character
requirements: [CM-EXEC-21]
class: serialisation
expect:
  value: '["a\uFFFDb","\uFFFD","\uD83D\uDE00"]'
---*/
return ["a\uD800b", "\uDC00", "\uD83D\uDE00"];
