/*---
description: shrinking then growing an array's length leaves holes, not old values
requirements: [CM-SEC-04]
class: engine
expect:
  value: '{"has2":false,"v":true,"len":4,"keys":["0"],"joined":"1---"}'
---*/
const a = [1, 2, 3, 4];
a.length = 1;
a.length = 4;
return {has2: 2 in a, v: a[2] === undefined, len: a.length, keys: Object.keys(a), joined: a.join("-")};
