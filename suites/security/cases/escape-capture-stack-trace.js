/*---
description: Error.captureStackTrace and the stack of a host error leak no host frames or paths
requirements: [CM-SEC-02, CM-EXEC-13]
class: escape
tools: [fail]
expect:
  value: '"clean"'
---*/
let s = "";
try { await call("fail", {message: "x"}); } catch (e) { s += String(e.stack === undefined ? "" : e.stack); }
const o = {};
if (typeof Error.captureStackTrace === "function") { Error.captureStackTrace(o); s += String(o.stack); }
return /\.go:\d|goroutine|\/home\/|\/work\/|node_modules|wazero/.test(s) ? "leaked: " + s : "clean";
