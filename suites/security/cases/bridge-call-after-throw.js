/*---
description: a call queued right before the cell throws is never dispatched after the failure
requirements: [CM-NEST-23, CM-GUEST-12]
class: bridge
tools: [echo]
expect:
  errorMatches: 'cell failed on purpose'
---*/
Promise.resolve().then(() => dispatch("echo", {late: "throw"}));
throw new Error("cell failed on purpose");
