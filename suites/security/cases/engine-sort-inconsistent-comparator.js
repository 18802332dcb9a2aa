/*---
description: an inconsistent comparator still yields a permutation of the elements
requirements: [CM-SEC-04]
class: engine
expect:
  value: '{"perm":true,"typed":true}'
---*/
const a = Array.from({length: 500}, (_, i) => i);
a.sort(() => (Math.random() < 0.5 ? -1 : 1));
const t = new Float64Array(a);
t.sort(() => NaN);
return {perm: a.slice().sort((x, y) => x - y).every((v, i) => v === i), typed: Array.from(t).sort((x, y) => x - y).every((v, i) => v === i)};
