/*---
description: Array sort with a comparator that empties, grows and redefines the array stays consistent or throws a guest error
requirements: [CM-SEC-04]
class: engine
expect:
  anyOf:
    - value: '"consistent"'
    - errorMatches: '^(Uncaught )?(Error: getter in sort|TypeError)'
---*/
const a = Array.from({length: 200}, (_, i) => ({i}));
let calls = 0;
a.sort((x, y) => {
  calls++;
  if (calls === 10) a.length = 0;
  if (calls === 20) for (let k = 0; k < 1000; k++) a.push({i: -k});
  if (calls === 30) Object.defineProperty(a, 3, {get() { throw new Error("getter in sort"); }, configurable: true});
  return Math.random() - 0.5;
});
return typeof a.length === "number" ? "consistent" : "broken";
