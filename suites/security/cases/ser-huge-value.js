/*---
description: a cell value larger than maxOutputBytes fails with output_limit_exceeded
requirements: [CM-LIM-03]
class: serialisation
expect:
  code: output_limit_exceeded
---*/
return "x".repeat(1 << 20);
