/*---
description: mutating a tool result does not change what the next call returns
requirements: [CM-GUEST-11]
class: bridge
tools: [echo]
expect:
  value: '{"list":[1],"o":{"k":"v"}}'
---*/
const a = (await call("echo", {list: [1], o: {k: "v"}}));
a.list.push(2); a.o.k = "changed"; a.extra = true;
const b = (await call("echo", {list: [1], o: {k: "v"}}));
return b;
