/*---
description: exceeding memoryLimitBytes ends the cell with memory_limit_exceeded even when the guest catches the error
requirements: [CM-LIM-02]
class: dos
expect:
  code: memory_limit_exceeded
---*/
const keep = [];
try { for (;;) keep.push(new Array(100000).fill(keep.length)); } catch (e) { return "caught " + keep.length; }
