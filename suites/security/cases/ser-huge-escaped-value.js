/*---
description: a value of control characters whose JSON escapes are six times larger is counted by content and fails over the limit
requirements: [CM-LIM-03, CM-LIM-09]
class: serialisation
expect:
  code: output_limit_exceeded
expectByProfile:
  v2:                                  # 001: byte fitting truncates the result (CM-LIM-03 under v2)
    anyOf:
      - code: output_limit_exceeded
      - truncatedWithin: 66048         # maxOutputBytes 65536 + 512 bytes of envelope
---*/
return "\u0001".repeat(70000);
