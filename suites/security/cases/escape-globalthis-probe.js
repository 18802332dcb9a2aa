/*---
description: globalThis, its prototype chain and its constructor hold no host global
requirements: [CM-SEC-01]
class: escape
expect:
  value: '[]'
---*/
const bad = /^(process|require|std|os|Buffer|scriptArgs|WebAssembly|fetch|XMLHttpRequest|Deno|Bun|module|exports|__dirname|__filename|setInterval|print|console_log|loadFile|evalScript)$/;
const found = [];
for (let o = globalThis; o !== null; o = Object.getPrototypeOf(o)) {
  for (const k of Reflect.ownKeys(o)) if (typeof k === "string" && bad.test(k)) found.push(k);
}
const ctor = globalThis.constructor;
if (ctor && ctor !== Object) found.push("constructor " + String(ctor.name));
return found;
