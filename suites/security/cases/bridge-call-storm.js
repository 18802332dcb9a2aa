/*---
description: a thousand calls at once fail the cell (too_many_pending_tool_calls, or invalid_input under bridge-queue) and start none beyond the limit
requirements: [CM-LIM-05, CM-NEST-05, CM-NEST-23]
class: bridge
tools: [echo]
expect:
  anyOf:
    - code: too_many_pending_tool_calls
    - code: invalid_input
---*/
const ps = [];
for (let i = 0; i < 1000; i++) ps.push(dispatch("echo", {i}));
await Promise.all(ps);
return ps.length;
