/*---
description: Error.prepareStackTrace call sites give the guest no host function or host global
requirements: [CM-SEC-02, CM-SEC-01]
class: escape
tools: [fail]
expect:
  value: '[]'
---*/
const found = new Set();
Error.prepareStackTrace = (e, sites) => {
  for (const s of Array.isArray(sites) ? sites : []) {
    for (const m of ["getFunction", "getThis", "getTypeName", "getFileName"]) {
      try {
        const v = typeof s[m] === "function" ? s[m]() : undefined;
        if (typeof v === "function") found.add(v instanceof Function ? "guest" : "foreign " + String(v).slice(0, 60));
        if (typeof v === "string" && /\/|\\/.test(v) && !/^<|eval|input/.test(v)) found.add("path " + v);
      } catch (x) {}
    }
  }
  return "custom";
};
try { await call("fail", {message: "x"}); } catch (e) { void e.stack; }
try { null.f(); } catch (e) { void e.stack; }
void new Error("probe").stack;
return [...found].filter((s) => s !== "guest");
