/*---
description: mutating a tool result does not change what the next call returns
requirements: [CM-GUEST-11]
class: bridge
tools: [echo]
expect:
  value: '{"list":[1],"o":{"k":"v"}}'
---*/
const a = callValue(id("echo"), await tools.call(id("echo"), {list: [1], o: {k: "v"}}));
a.list.push(2); a.o.k = "changed"; a.extra = true;
const b = callValue(id("echo"), await tools.call(id("echo"), {list: [1], o: {k: "v"}}));
return b;
