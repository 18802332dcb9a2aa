// Guest-side probe of the sandbox boundary, shared by the security specs
// (CM-SEC-01, CM-SEC-02, and the forged tool.invoke specs of CM-GUEST-05,
// CM-SEC-05, CM-ACT-05). The specs prepend this file to a cell; the cell
// then returns `await realmReport(part)` or `await forgeInvokes(lines)`.
//
// It is deliberately sloppy-mode JavaScript: `this` of the cell,
// arguments.callee.caller and Function.prototype.caller only mean something
// there.
//
// A value is of the guest realm when
//   - its prototype chain, by Object.getPrototypeOf and by __proto__, ends at
//     the guest's own Object.prototype (or is empty: a null-prototype object);
//   - its constructor.constructor, when that is a function, is the guest's own
//     Function.
// Every value that breaks either rule is an escape: the report names the path
// that reached it and what the foreign Function constructor's
// ("return this")() exposes (process, require, …). The walk never descends
// into a foreign value.
var REALM_CELL_THIS = this;
var REALM_CELL_CALLER = (() => { try { return arguments.callee.caller; } catch (e) { return e; } })();

var realmProbe = (function () {
  const G = globalThis;
  const GFunction = Function;
  const GObjectProto = Object.prototype;
  const GFunctionProto = Function.prototype;
  const GPromise = Promise;
  const GPromiseThen = Promise.prototype.then;
  const GError = Error;
  const getProto = Object.getPrototypeOf;
  const ownNames = Object.getOwnPropertyNames;
  const ownSymbols = Object.getOwnPropertySymbols;
  const getDesc = Object.getOwnPropertyDescriptor;
  const isArray = Array.isArray;
  const apply = Reflect.apply;
  const AsyncFunction = (async function () {}).constructor;
  const GeneratorFunction = (function* () {}).constructor;
  const AsyncGeneratorFunction = (async function* () {}).constructor;
  // Host globals that must never be reachable (CM-SEC-01).
  const HOST_NAMES = ["process", "require", "module", "exports", "global", "Deno", "Bun", "Buffer",
    "__dirname", "__filename", "std", "os", "fetch", "WebAssembly", "XMLHttpRequest"];
  const MAX_VALUES = 100000;
  const MAX_ESCAPES = 60;

  function str(v) {
    try {
      if (typeof v === "function") return "function " + (v.name || "(anonymous)");
      if (typeof v === "symbol") return v.toString();
      if (v !== null && typeof v === "object") return "object";
      return String(v);
    } catch (e) { return "(unprintable)"; }
  }

  // describe names a value and, for an object, its first own keys (what a
  // reached host object is: process shows version, arch, env, …).
  function describe(v) {
    if (v === null || (typeof v !== "object" && typeof v !== "function")) return str(v);
    let keys = [];
    try { keys = ownNames(v).slice(0, 8); } catch (e) {}
    return str(v) + (keys.length ? " {" + keys.join(", ") + ", …}" : "");
  }

  // exposes lists the host globals a global object g carries.
  function exposes(g) {
    const out = [];
    if (g === null || (typeof g !== "object" && typeof g !== "function")) return out;
    for (const n of HOST_NAMES) {
      try { if (typeof g[n] !== "undefined") out.push(n); } catch (e) { out.push(n + " (threw)"); }
    }
    return out;
  }

  // chainEnd follows the prototype chain of v with next() and returns the
  // last object before null (undefined for an empty chain).
  function chainEnd(v, next) {
    let last;
    let p = v;
    for (let i = 0; i < 64; i++) {
      let q;
      try { q = next(p); } catch (e) { return last; }
      if (q === null || q === undefined || (typeof q !== "object" && typeof q !== "function")) return last;
      if (q === p) return last;
      last = q;
      p = q;
    }
    return last;
  }

  function protoOf(o) { return getProto(o); }
  function dunderProto(o) { return o.__proto__; }

  // judge returns the reasons v is not of the guest realm (empty when it is)
  // and records every foreign Function constructor it meets in foreign.
  function judge(path, v, foreign) {
    const why = [];
    const end = chainEnd(v, protoOf);
    if (end !== undefined && end !== GObjectProto) why.push("Object.getPrototypeOf chain ends outside the guest's Object.prototype");
    const end2 = chainEnd(v, dunderProto);
    if (end2 !== undefined && end2 !== GObjectProto) why.push("__proto__ chain ends outside the guest's Object.prototype");
    if (typeof v === "function" && v !== GFunctionProto && end === GObjectProto) {
      let p = v, found = false;
      for (let i = 0; i < 64 && p; i++) { try { p = getProto(p); } catch (e) { break; } if (p === GFunctionProto) { found = true; break; } }
      if (!found) why.push("a function whose chain misses the guest's Function.prototype");
    }
    let c, F;
    try { c = v.constructor; } catch (e) {}
    if (typeof c === "function") {
      let cc;
      try { cc = c.constructor; } catch (e) {}
      if (typeof cc === "function" && cc !== GFunction) {
        why.push("constructor.constructor is not the guest's Function");
        F = cc;
        foreign.push({ path: path + ".constructor.constructor", F: cc });
      }
    }
    if (why.length === 0) return null;
    const e = { path: path, why: why, value: str(v) };
    // What the foreign Function constructor reaches, as an attacker would use it.
    if (F) {
      try {
        const g = F("return this")();
        e.returnThis = g === G ? "the guest's globalThis" : "another global object";
        e.exposes = exposes(g);
      } catch (x) { e.returnThis = "threw: " + str(x && x.message); }
    }
    return e;
  }

  function keyPath(path, k) {
    if (typeof k === "symbol") return path + "[" + str(k) + "]";
    return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? path + "." + k : path + "[" + JSON.stringify(k) + "]";
  }

  // walk visits every object and function reachable from roots through own
  // properties (values, getters, setters, what getters return or throw) and
  // prototypes, judging each once.
  function walk(roots, report, foreign) {
    const seen = new Map();
    const queue = roots.slice();
    let i = 0;
    for (; i < queue.length && report.checked < MAX_VALUES; i++) {
      const path = queue[i][0];
      const v = queue[i][1];
      if (v === null || (typeof v !== "object" && typeof v !== "function")) continue;
      if (seen.has(v)) continue;
      seen.set(v, path);
      report.checked++;
      const bad = judge(path, v, foreign);
      if (bad) { report.escapes.push(bad); continue; } // never walk into a foreign value
      let p;
      try { p = getProto(v); } catch (e) {}
      if (p) queue.push([path + ".[[Prototype]]", p]);
      let keys = [];
      try { keys = ownNames(v).concat(ownSymbols(v)); } catch (e) {}
      for (const k of keys) {
        let d;
        try { d = getDesc(v, k); } catch (e) { continue; }
        if (!d) continue;
        const kp = keyPath(path, k);
        if ("value" in d) { queue.push([kp, d.value]); continue; }
        if (d.get) {
          queue.push([kp + "<get>", d.get]);
          try { queue.push([kp, apply(d.get, v, [])]); } catch (e) { queue.push([kp + "<threw>", e]); }
        }
        if (d.set) queue.push([kp + "<set>", d.set]);
      }
    }
    // A walk cut short cannot say the rest is clean: the Go side fails on it.
    if (i < queue.length) report.unvisited = (report.unvisited || 0) + queue.length - i;
  }

  // callsites returns what Error.prepareStackTrace's call sites expose
  // (getThis, getFunction) for a stack captured by capture(), where the
  // engine supports them.
  function callsites(capture) {
    const out = [];
    let saved;
    try { saved = GError.prepareStackTrace; } catch (e) {}
    try {
      GError.prepareStackTrace = function (e, cs) { return cs; };
      const cs = capture();
      if (isArray(cs)) {
        for (let i = 0; i < cs.length; i++) {
          try { out.push(["callsite[" + i + "].getThis()", cs[i].getThis()]); } catch (e) {}
          try { out.push(["callsite[" + i + "].getFunction()", cs[i].getFunction()]); } catch (e) {}
        }
      }
    } catch (e) {
      out.push(["prepareStackTrace<threw>", e]);
    } finally {
      try { GError.prepareStackTrace = saved; } catch (e) {}
    }
    return out;
  }

  // spy is an object handed to host functions: each hook the host may call
  // (toJSON, toString, valueOf, Symbol.toPrimitive, the iterator symbols,
  // getters, Node's inspect symbol) records its receiver, its arguments, its caller and the
  // call sites of its stack, so the walk can judge them.
  function spy(name, captured) {
    function hook(hname, ret) {
      return function () {
        const at = name + "." + hname;
        captured.push([at + "<this>", this]);
        for (let i = 0; i < arguments.length; i++) captured.push([at + "<arg" + i + ">", arguments[i]]);
        try { captured.push([at + "<caller>", arguments.callee.caller]); } catch (e) { captured.push([at + "<caller threw>", e]); }
        const cs = callsites(function () { return new GError("spy").stack; });
        for (const c of cs) captured.push([at + "<" + c[0] + ">", c[1]]);
        if (typeof ret === "function") return ret.apply(this, arguments);
        return ret;
      };
    }
    const o = { message: "spy", ms: 1 };
    o.toJSON = hook("toJSON", function () { return { spy: name }; });
    o.toString = hook("toString", "spy");
    o.valueOf = hook("valueOf", 0);
    o[Symbol.toPrimitive] = hook("[Symbol.toPrimitive]", "spy");
    o[Symbol.for("nodejs.util.inspect.custom")] = hook("[inspect.custom]", "spy");
    o[Symbol.iterator] = hook("[Symbol.iterator]", function () { return [][Symbol.iterator](); });
    o[Symbol.asyncIterator] = hook("[Symbol.asyncIterator]", function () { return { next: function () { return GPromise.resolve({ done: true }); } }; });
    Object.defineProperty(o, "lazy", { enumerable: true, get: hook("get lazy", "spy") });
    return o;
  }

  // thenable is a thenable and a Proxy over a guest promise: a host that
  // awaits or inspects it hands its resolving functions and receivers over.
  function thenables(name, captured) {
    const t = {};
    t.then = function (res, rej) {
      captured.push([name + ".then<this>", this]);
      captured.push([name + ".then<resolve>", res]);
      captured.push([name + ".then<reject>", rej]);
      try { captured.push([name + ".then<caller>", arguments.callee.caller]); } catch (e) {}
      if (typeof res === "function") res({ thenable: name });
    };
    const p = new Proxy(GPromise.resolve({ proxied: name }), {
      get: function (target, k, recv) {
        captured.push([name + "Proxy.get<receiver>", recv]);
        const v = Reflect.get(target, k);
        return typeof v === "function" ? function () { for (let i = 0; i < arguments.length; i++) captured.push([name + "Proxy." + String(k) + "<arg" + i + ">", arguments[i]]); return apply(v, target, arguments); } : v;
      },
    });
    return [t, p];
  }

  async function settle(label, f, values) {
    let p;
    try { p = f(); } catch (e) { values.push([label + "<threw>", e]); return; }
    values.push([label + "<returned>", p]);
    try { values.push([label + "<resolved>", await p]); } catch (e) { values.push([label + "<rejected>", e]); }
  }

  function toolId(name) {
    try {
      const t = G.ALL_TOOLS.find(function (t) { return t.name === name; });
      return t ? t.id : "openclaw:core:" + name;
    } catch (e) { return "openclaw:core:" + name; }
  }

  // delivered collects values the host hands to the guest: tools, helpers,
  // text/json, the promises of tools.* and their results, and errors thrown by
  // failed nested calls, unknown ids and syntax errors (CM-SEC-02). It returns
  // the guest API it called tools through: "tools" (000's tools.call),
  // "catalog" (001's catalog handles) or "none" (the cell has neither).
  async function delivered(values, captured) {
    const tools = G.tools;
    let surface = tools ? "tools" : "none";
    for (const n of ["tools", "ALL_TOOLS", "text", "json", "yield_control", "MCP", "namespaces", "API"]) {
      try { if (typeof G[n] !== "undefined") values.push([n, G[n]]); } catch (e) { values.push([n + "<threw>", e]); }
    }
    if (tools) {
      let helpers = [];
      try { helpers = ownNames(tools).filter(function (n) { return ["search", "describe", "call"].indexOf(n) < 0; }); } catch (e) {}
      for (const h of helpers) {
        values.push(["tools." + h, tools[h]]);
        if (h === "echo") await settle("tools.echo(spy)", function () { return tools.echo(spy("tools.echo", captured)); }, values);
      }
      const echo = toolId("echo");
      await settle("tools.call(echo)", function () { return tools.call(echo, { message: "hi", nested: { a: [1] } }); }, values);
      await settle("tools.call(echo, spy)", function () { return tools.call(echo, spy("tools.call", captured)); }, values);
      const th = thenables("callInput", captured);
      await settle("tools.call(echo, thenables)", function () { return tools.call(echo, { thenable: th[0], proxy: th[1] }); }, values);
      await settle("tools.search(echo)", function () { return tools.search("echo"); }, values);
      await settle("tools.search(spy)", function () { return tools.search(spy("tools.search", captured)); }, values);
      await settle("tools.describe(echo)", function () { return tools.describe(echo); }, values);
      await settle("tools.describe(spy)", function () { return tools.describe(spy("tools.describe", captured)); }, values);
      await settle("tools.call(fail)", function () { return tools.call(toolId("fail"), { message: "nested failure" }); }, values);
      await settle("tools.call(unknown id)", function () { return tools.call("no:such:tool", {}); }, values);
      await settle("tools.call()", function () { return tools.call(); }, values);
      await settle("tools.describe(unknown id)", function () { return tools.describe("no:such:tool"); }, values);
      // A Proxy over the host's own promise: awaiting it runs the guest's trap
      // on whatever the host promise exposes.
      let hp;
      try { hp = tools.call(echo, { message: "proxied" }); } catch (e) {}
      if (hp) {
        const pp = new Proxy(hp, { get: function (t, k, r) { const v = Reflect.get(t, k); values.push(["proxy(tools.call())." + String(k), v]); return typeof v === "function" ? v.bind(t) : v; } });
        try { values.push(["await proxy(tools.call())", await pp]); } catch (e) { values.push(["await proxy(tools.call())<rejected>", e]); }
      }
    }
    // Page 001's surface (profile v2): no tools global, the run's tools are
    // catalog handles (spec/protocol.md §12.13): the same values, through
    // the handles, catalog.search and describe().
    const catalog = G.catalog;
    if (!tools && catalog !== null && typeof catalog === "object" && typeof catalog.all === "function") {
      surface = "catalog";
      values.push(["catalog", catalog]);
      let handles = [];
      try { handles = await catalog.all(); } catch (e) { values.push(["catalog.all()<threw>", e]); }
      if (!Array.isArray(handles)) { values.push(["catalog.all()", handles]); handles = []; }
      const byName = function (n) { return handles.find(function (h) { return typeof h === "function" && h.toolName === n; }); };
      handles.forEach(function (h, i) { values.push(["catalog.all()[" + i + "]", h]); });
      const echo = byName("echo"), fail = byName("fail");
      if (echo) {
        await settle("echo handle({...})", function () { return echo({ message: "hi", nested: { a: [1] } }); }, values);
        await settle("echo handle(spy)", function () { return echo(spy("echo handle", captured)); }, values);
        const th = thenables("callInput", captured);
        await settle("echo handle(thenables)", function () { return echo({ thenable: th[0], proxy: th[1] }); }, values);
        if (typeof echo.describe === "function") await settle("echo handle.describe()", function () { return echo.describe(); }, values);
        let hp;
        try { hp = echo({ message: "proxied" }); } catch (e) {}
        if (hp) {
          const pp = new Proxy(hp, { get: function (t, k, r) { const v = Reflect.get(t, k); values.push(["proxy(echo handle())." + String(k), v]); return typeof v === "function" ? v.bind(t) : v; } });
          try { values.push(["await proxy(echo handle())", await pp]); } catch (e) { values.push(["await proxy(echo handle())<rejected>", e]); }
        }
      }
      if (fail) await settle("fail handle()", function () { return fail({ message: "nested failure" }); }, values);
      if (typeof catalog.search === "function") {
        await settle("catalog.search(echo)", function () { return catalog.search("echo"); }, values);
        await settle("catalog.search(spy)", function () { return catalog.search(spy("catalog.search", captured)); }, values);
      }
    }
    if (typeof G.text === "function") await settle("text(spy)", function () { return G.text(spy("text", captured)); }, values);
    if (typeof G.json === "function") await settle("json(spy)", function () { return G.json(spy("json", captured)); }, values);
    if (G.API && typeof G.API.read === "function") await settle("API.read(spy)", function () { return G.API.read(spy("API.read", captured)); }, values);
    for (const src of ["{", "return )", "let let = 1"]) {
      try { new GFunction(src); } catch (e) { values.push(["new Function(" + JSON.stringify(src) + ")<threw>", e]); }
      try { new AsyncFunction(src); } catch (e) { values.push(["new AsyncFunction(" + JSON.stringify(src) + ")<threw>", e]); }
      try { (0, eval)(src); } catch (e) { values.push(["eval(" + JSON.stringify(src) + ")<threw>", e]); }
    }
    try { JSON.parse("{"); } catch (e) { values.push(["JSON.parse<threw>", e]); }
    try { null.x; } catch (e) { values.push(["null.x<threw>", e]); }
    return surface;
  }

  // attempts tries the known escapes and records what each reached: "blocked"
  // (with the error) or "reached …". Values they produce are walked too.
  async function attempts(out, values, captured) {
    async function attempt(name, f, ok) {
      try {
        const v = await f();
        values.push([name, v]);
        out[name] = ok(v) ? "blocked" : "reached " + (v === G ? "the guest's globalThis" : describe(v)) + (exposes(v).length ? " exposing " + exposes(v).join(", ") : "");
      } catch (e) {
        values.push([name + "<threw>", e]);
        out[name] = "blocked (" + str(e && e.name) + ")";
      }
    }
    const isUndef = function (v) { return v === undefined; };
    const isGuestGlobal = function (v) { return v === G; };
    const T = REALM_CELL_THIS;
    await attempt('this.constructor.constructor("return process")()', function () { return T.constructor.constructor("return process")(); }, isUndef);
    await attempt('globalThis.constructor.constructor("return process")()', function () { return G.constructor.constructor("return process")(); }, isUndef);
    await attempt('({}).constructor.constructor("return this")()', function () { return ({}).constructor.constructor("return this")(); }, isGuestGlobal);
    await attempt('Function("return this")()', function () { return GFunction("return this")(); }, isGuestGlobal);
    await attempt('(0, eval)("this")', function () { return (0, eval)("this"); }, isGuestGlobal);
    await attempt('(async () => {}).constructor("return this")()', function () { return AsyncFunction("return this")(); }, isGuestGlobal);
    await attempt('(function* () {}).constructor("return this")().next().value', function () { return GeneratorFunction("return this")().next().value; }, isGuestGlobal);
    await attempt('(async function* () {}).constructor("return this")().next()', async function () { return (await AsyncGeneratorFunction("return this")().next()).value; }, isGuestGlobal);
    if (G.tools) {
      await attempt('tools.call.constructor.constructor("return process")()', function () { return G.tools.call.constructor.constructor("return process")(); }, isUndef);
      await attempt('tools.call(...).constructor.constructor("return process")()', function () { const p = G.tools.call(toolId("echo"), {}); p.then(null, function () {}); return p.constructor.constructor("return process")(); }, isUndef);
    }
    if (typeof G.text === "function") await attempt('text.constructor("return process")()', function () { return G.text.constructor("return process")(); }, isUndef);
    for (const m of ["fs", "node:child_process", "os", "std", "child_process"]) {
      // The keyword is assembled at run time: a target whose static module
      // scan also reads string contents must not reject the whole probe.
      var dyn = ["imp", "ort("].join("");
      await attempt(dyn + JSON.stringify(m) + ")", function () { return GFunction("return " + dyn + JSON.stringify(m) + ")")(); }, function () { return false; });
    }
    await attempt("arguments.callee.caller (of the cell)", function () { return REALM_CELL_CALLER instanceof GError ? undefined : REALM_CELL_CALLER; },
      function (v) { return v === undefined || v === null || judge("caller", v, []) === null; });
    for (const c of callsites(function () { return new GError("probe").stack; })) values.push(["Error.prepareStackTrace " + c[0], c[1]]);
    if (typeof GError.captureStackTrace === "function") {
      for (const c of callsites(function () { const o = {}; GError.captureStackTrace(o); return o.stack; })) values.push(["Error.captureStackTrace " + c[0], c[1]]);
    }
    // A host that calls back into guest code (toJSON, toString, getters)
    // hands its frames to prepareStackTrace: collected through the spies.
    for (const c of captured) values.push(c);
  }

  // realmReport walks what part names: "reach" (this, globalThis, the
  // intrinsics, known escapes: CM-SEC-01) or "delivered" (what the host hands
  // over: CM-SEC-02). The report is plain JSON: {checked, escapes: [{path,
  // why, value, returnThis, exposes}] (known escapes first, at most
  // MAX_ESCAPES), omitted (how many more), unvisited (values a walk cut at
  // MAX_VALUES never judged), attempts: {name: outcome}, surface (part
  // "delivered": the guest API delivered called tools through)}.
  async function realmReport(part) {
    const report = { checked: 0, escapes: [], attempts: {} };
    const values = [];
    const captured = [];
    const foreign = [];
    if (part === "reach") {
      values.push(["this", REALM_CELL_THIS], ["globalThis", G], ["arguments.callee.caller", REALM_CELL_CALLER],
        ["AsyncFunction", AsyncFunction], ["GeneratorFunction", GeneratorFunction], ["AsyncGeneratorFunction", AsyncGeneratorFunction]);
      await attempts(report.attempts, values, captured);
    } else {
      report.surface = await delivered(values, captured);
      for (const c of captured) values.push(c);
    }
    walk(values, report, foreign);
    const known = [];
    for (const k in report.attempts) {
      if (report.attempts[k].indexOf("reached") === 0) known.push({ path: k, why: ["known escape " + report.attempts[k]] });
    }
    report.escapes = known.concat(report.escapes);
    // The report is the cell's value: keep it well inside maxOutputBytes.
    if (report.escapes.length > MAX_ESCAPES) {
      report.omitted = report.escapes.length - MAX_ESCAPES;
      report.escapes = report.escapes.slice(0, MAX_ESCAPES);
    }
    return report;
  }

  // hostWriters returns functions that write a line to the target's own
  // stdout, through whatever foreign Function constructor the guest reached.
  async function hostWriters() {
    const report = { checked: 0, escapes: [], attempts: {} };
    const values = [];
    const captured = [];
    const foreign = [];
    values.push(["this", REALM_CELL_THIS], ["globalThis", G]);
    await attempts(report.attempts, values, captured);
    await delivered(values, captured);
    for (const c of captured) values.push(c);
    walk(values, report, foreign);
    const writers = [];
    for (const f of foreign) {
      try {
        const proc = f.F("return typeof process === 'undefined' ? undefined : process")();
        if (proc && proc.stdout && typeof proc.stdout.write === "function") {
          writers.push({ via: f.path + '("return process")().stdout.write', write: function (line) { proc.stdout.write(line + "\n"); } });
          break;
        }
      } catch (e) {}
    }
    return { report: report, writers: writers };
  }

  // forgeInvokes writes each line (a JSON-RPC tool.invoke the guest made up)
  // to the target's stdout, if any escape reaches it, and arms a trap on
  // Promise.prototype.then that forges them again when the host awaits the
  // cell's result with foreign resolving functions. It returns the
  // realm report plus {forged, via}.
  async function forgeInvokes(lines) {
    const h = await hostWriters();
    const out = { escapes: h.report.escapes.slice(0, MAX_ESCAPES).map(function (e) { return e.path; }), forged: 0, via: [] };
    for (const w of h.writers) {
      for (const l of lines) { try { w.write(l); out.forged++; } catch (e) {} }
      out.via.push(w.via);
    }
    let armed = false;
    Promise.prototype.then = function (a, b) {
      if (!armed) {
        for (const f of [a, b]) {
          const foreign = [];
          if (typeof f === "function" && judge("then<arg>", f, foreign) && foreign.length) {
            try {
              const proc = foreign[0].F("return process")();
              armed = true;
              for (const l of lines) proc.stdout.write(l + "\n");
            } catch (e) {}
          }
        }
      }
      return apply(GPromiseThen, this, arguments);
    };
    return out;
  }

  return { realmReport: realmReport, forgeInvokes: forgeInvokes };
})();
var realmReport = realmProbe.realmReport;
var forgeInvokes = realmProbe.forgeInvokes;
