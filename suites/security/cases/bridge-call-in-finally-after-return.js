/*---
description: a call started in a finally handler of the returned promise is never dispatched after the answer
requirements: [CM-NEST-23]
class: bridge
tools: [echo]
expect:
  anyOf:
    - value: '"done"'
    - status: failed
---*/
// The finally handler runs before the returned promise settles, so this call
// is made before the value is determined: it may be dispatched, but never
// after the answer (not marked late, see corpus.MadeLate).
return Promise.resolve("done").finally(() => { dispatch("echo", {inFinally: true}); });
