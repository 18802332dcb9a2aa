/*---
description: pushing past the maximum array length throws and keeps the length
requirements: [CM-SEC-04]
class: engine
expect:
  anyOf:
    - value: '{"len":4294967295,"err":"RangeError"}'
    - value: '{"len":4294967295,"err":"TypeError"}'
---*/
const a = [];
a[4294967294] = "last";
let err;
try { a.push("over"); } catch (e) { err = e.name; }
return {len: a.length, err};
