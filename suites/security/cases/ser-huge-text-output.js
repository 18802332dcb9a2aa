/*---
description: text output larger than maxOutputBytes fails with output_limit_exceeded
requirements: [CM-LIM-03]
class: serialisation
expect:
  code: output_limit_exceeded
---*/
for (let i = 0; i < 200; i++) text("y".repeat(4096));
return "done";
