/*---
description: a call storm whose rejections the guest catches still cannot exceed maxPendingToolCalls
requirements: [CM-LIM-05, CM-NEST-23]
class: bridge
tools: [echo]
expect:
  anyOf:
    - value: '"bounded"'
    - code: too_many_pending_tool_calls
    - code: invalid_input
---*/
const ps = [];
for (let i = 0; i < 500; i++) ps.push(dispatch("echo", {i}).then(() => "ok", () => "rejected"));
const r = await Promise.all(ps);
return r.filter((x) => x === "ok").length <= 128 ? "bounded" : "unbounded";
