/*---
description: a throwing toJSON given to text() and json() gives a clean error or plain output
requirements: [CM-GUEST-08, CM-GUEST-07]
class: serialisation
expect:
  anyOf:
    - value: '"after"'
    - status: failed
---*/
const bad = {toJSON() { throw new Error("toJSON boom"); }, toString() { throw new Error("toString boom"); }};
try { text(bad); } catch (e) {}
try { json(bad); } catch (e) {}
return "after";
