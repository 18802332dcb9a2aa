/*---
description: Atomics on a plain ArrayBuffer work as the language says and reach nothing else
requirements: [CM-SEC-01]
class: engine
expect:
  anyOf:
    - value: '{"v":7,"cas":7,"after":9,"waitOnPlain":"TypeError"}'
    - value: '"absent"'
---*/
if (typeof Atomics === "undefined") return "absent";
const a = new Int32Array(4);
Atomics.store(a, 0, 5);
Atomics.add(a, 0, 2);
let waitOnPlain;
try { Atomics.wait(a, 0, 7, 0); waitOnPlain = "returned"; } catch (e) { waitOnPlain = e.name; }
return {v: Atomics.load(a, 0), cas: Atomics.compareExchange(a, 0, 7, 9), after: a[0], waitOnPlain};
