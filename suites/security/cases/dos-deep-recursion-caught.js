/*---
description: unbounded recursion the guest catches is a RangeError (or internal_error where the engine cannot check its stack)
requirements: [CM-LIM-04, CM-EXEC-23, CM-SEC-04]
class: dos
expect:
  anyOf:
    - value: '"RangeError"'
    - code: internal_error
---*/
function f(n) { return f(n + 1) + 1; }
try { f(0); return "returned"; } catch (e) { return e instanceof RangeError ? "RangeError" : "other " + e; }
