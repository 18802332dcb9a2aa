/*---
description: lone surrogates in text output and in the error text become U+FFFD
requirements: [CM-EXEC-21, CM-EXEC-14]
class: serialisation
expect:
  errorMatches: 'err\x{FFFD}'
---*/
text("out\uD800");
throw new Error("err\uDC00");
