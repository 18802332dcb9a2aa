/*---
description: a value of control characters whose JSON escapes are six times larger is counted by content and fails over the limit
requirements: [CM-LIM-03, CM-LIM-09]
class: serialisation
expect:
  code: output_limit_exceeded
---*/
return "\u0001".repeat(70000);
