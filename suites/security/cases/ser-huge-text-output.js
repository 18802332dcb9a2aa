/*---
description: text output larger than maxOutputBytes fails with output_limit_exceeded
requirements: [CM-LIM-03]
class: serialisation
expect:
  code: output_limit_exceeded
expectByProfile:
  v2:                                  # 001: byte fitting truncates the result (CM-LIM-03 under v2)
    anyOf:
      - code: output_limit_exceeded
      - truncatedWithin: 66048         # maxOutputBytes 65536 + 512 bytes of envelope
---*/
for (let i = 0; i < 200; i++) text("y".repeat(4096));
return "done";
