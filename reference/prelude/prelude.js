// Guest prelude of the code mode reference runtime.
//
// Evaluated once in every fresh QuickJS context before the model's code. It
// defines the guest API (ALL_TOOLS, tools, MCP, namespaces, text, json,
// yield_control, API — CM-GUEST-01) and the guest half of the bridge: a queue
// of requests the host drains with poll() and answers with deliver(). The
// host never trusts what this file reports: it re-validates every request and
// measures every output itself.
//
// The bridge functions (boot, start, poll, deliver, seal) are the properties
// of the global __codemode only while the template boots: the host takes them
// as handles and deletes the global before any guest code runs (prelude.Load),
// so guest code can neither answer its own calls nor drain its own output.
// Per cell the host calls boot(<config JSON>), then start(<code>).
(function (global) {
  "use strict";
  // Capture everything used later: guest code may replace globals and
  // prototypes, which must only break the guest itself, never this bridge.
  const ObjectCtor = Object;
  const create = Object.create;
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const getOwnPropertyNames = Object.getOwnPropertyNames;
  const objectKeys = Object.keys;
  const getPrototypeOf = Object.getPrototypeOf;
  const isArray = Array.isArray;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const apply = Reflect.apply;
  const PromiseCtor = Promise;
  const promiseThen = Promise.prototype.then;
  const StringCtor = String;
  const MapCtor = Map;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  const mapHas = Map.prototype.has;
  const AsyncFunction = (async function () {}).constructor;
  const toLower = String.prototype.toLowerCase;
  const indexOf = String.prototype.indexOf;
  const split = String.prototype.split;
  const replace = String.prototype.replace;
  const mathMin = Math.min;
  const isInteger = Number.isInteger;
  const setPrototypeOf = Object.setPrototypeOf;
  const hostErrors = new WeakSet(); // error objects delivered by the host
  const weakSetAdd = WeakSet.prototype.add;
  const weakSetHas = WeakSet.prototype.has;
  const errorSites = new WeakMap(); // error -> where the cell's own code made it (CM-TS-05)
  const weakMapGet = WeakMap.prototype.get;
  const weakMapSet = WeakMap.prototype.set;
  const ErrorCtor = Error;
  const ProxyCtor = Proxy;
  const ReflectGet = Reflect.get;
  const toWellFormed = String.prototype.toWellFormed;
  const strIndexOf = String.prototype.indexOf;
  const speciesSymbol = Symbol.species;
  const ObjectProto = Object.prototype;
  const ArrayProto = Array.prototype;
  const numberValueOf = Number.prototype.valueOf;
  const stringValueOf = String.prototype.valueOf;
  const booleanValueOf = Boolean.prototype.valueOf;
  const bigintValueOf = BigInt.prototype.valueOf;
  // namespaces.js, evaluated just before this file, left its builder here.
  const buildNamespaces = global.__codemodeNamespaceKit;
  delete global.__codemodeNamespaceKit;
  // The host's sink (engine.DefineSink): each output item goes to the host
  // as it is written, so a cell a limit ends keeps it (CM-EXEC-14).
  const sink = global.__codemodeSink;
  delete global.__codemodeSink;
  // The host's catalog query (engine.DefineQuery, prelude.CatalogIndex):
  // the run's catalog stays on the host, so neither this VM nor its
  // snapshots grow with it (issue 28 N3). Every catalog read below asks it.
  const hostQuery = global.__codemodeQuery;
  delete global.__codemodeQuery;

  // Bridge containers have no prototype: a guest that installs
  // Array.prototype.toJSON or Object.prototype getters cannot change what
  // poll() reports.
  function list() { return setPrototypeOf([], null); }
  function record() { return create(null); }

  // MAX_DEPTH is the bridge's nesting bound: arrays and objects nested more
  // deeply than this in a guest value are an error, never cut silently
  // (spec/protocol.md §4, reference/codemode/depth.go).
  const MAX_DEPTH = 64;
  let tooDeep = false; // toJSONValue met a container past MAX_DEPTH
  const DEPTH_MESSAGE = "the value is nested deeper than the bridge limit of " + MAX_DEPTH + " levels of arrays and objects; flatten it";

  let cfg = null; // boot config
  let nextId = 1;
  const pending = new MapCtor(); // request id -> {resolve, reject}
  let outbox = list(); // requests not yet polled by the host
  let sealed = false; // the cell's value is determined: no request leaves (seal)
  let output = list(); // output items not yet polled
  let pendingCount = 0;
  let outChars = 0;
  let state = "idle"; // idle | running | done | error
  let valueJSON = "null";
  let failure = null; // {name, message, code?}
  let fatal = null; // {code, message}: fails the cell whatever the guest does
  const counts = record();
  counts.search = 0;
  counts.describe = 0;
  counts.call = 0;

  function own(o, k) {
    return apply(ObjectCtor.prototype.hasOwnProperty, o, [k]);
  }

  // wf makes a string well-formed Unicode: every lone surrogate becomes
  // U+FFFD, the one rule of every channel (spec/protocol.md §6, CM-EXEC-21).
  function wf(s) {
    return typeof toWellFormed === "function" ? apply(toWellFormed, s, []) : s;
  }

  // isErrorLike: an Error of this realm, an error the host delivered, or an
  // object with a string name and a string message. Anything else thrown is
  // a plain value whose content must reach the error text (CM-EXEC-22).
  function isErrorLike(e) {
    try {
      if (e instanceof ErrorCtor || apply(weakSetHas, hostErrors, [e])) return true;
      return typeof e.name === "string" && typeof e.message === "string";
    } catch (_) {
      return false;
    }
  }

  // thrownText describes a thrown non-Error by its content: its class name
  // (other than Object and Array) and its JSON through the output adapter,
  // so `throw {status: 404}` reads `Uncaught {"status":404}`.
  function thrownText(e) {
    let s;
    try { s = encode(e); } catch (_) { s = "(unprintable value)"; }
    let cls = "";
    try {
      const proto = getPrototypeOf(e);
      const ctor = proto && proto.constructor;
      const n = typeof ctor === "function" ? ctor.name : "";
      if (typeof n === "string" && n !== "Object" && n !== "Array") cls = n + " ";
    } catch (_) {}
    if (typeof e === "function") return "Uncaught " + s;
    return "Uncaught " + cls + s;
  }

  // errorInfo turns anything thrown into plain {name, message} without
  // running guest code that could throw again. A thrown non-Error has an
  // empty name: the host then shows the message alone.
  function errorInfo(e) {
    if ((e !== null && typeof e === "object" || typeof e === "function") && !isErrorLike(e)) {
      const r = record();
      r.name = "";
      r.message = wf(thrownText(e));
      return r;
    }
    if (e !== null && typeof e === "object") {
      let name = "Error";
      let message = "";
      let code;
      try { name = e.name === undefined ? "Error" : wf(StringCtor(e.name)); } catch (_) { name = "Error"; }
      try { message = e.message === undefined ? "" : wf(StringCtor(e.message)); } catch (_) { message = "(unreadable message)"; }
      // Only errors the host delivered keep their code: a guest cannot make
      // its own throw look like a failed nested tool call.
      if (apply(weakSetHas, hostErrors, [e])) {
        try { if (typeof e.code === "string") code = e.code; } catch (_) {}
      }
      const r = record();
      r.name = name;
      r.message = message;
      const site = apply(weakMapGet, errorSites, [e]);
      if (site) { r.line = site.line; r.column = site.column; }
      if (code !== undefined) r.code = code;
      return r;
    }
    let s;
    try { s = wf(StringCtor(e)); } catch (_) { s = "(unprintable value)"; }
    const r = record();
    r.name = "";
    r.message = "Uncaught " + s;
    return r;
  }

  // unserializable is the reference's text for a value whose conversion
  // throws (a throwing getter or toJSON, a revoked Proxy): JSON.stringify
  // would throw there.
  function unserializable(e) {
    return "[Unserializable: " + errorInfo(e).message + "]";
  }

  // isBrand reports whether v has the internal slot that valueOf checks
  // ([[NumberData]] and the like): the check runs no guest code, not even a
  // Proxy trap.
  function isBrand(valueOf, v) {
    try { apply(valueOf, v, []); return true; } catch (_) { return false; }
  }

  // unbox is SerializeJSONProperty step 4: a Number, String, Boolean or
  // BigInt object becomes its primitive (ToNumber and ToString run the
  // object's own valueOf/toString, as JSON.stringify does). The brand checks
  // throw for every other object, so an object whose prototype is
  // Object.prototype, Array.prototype or null skips them: a boxed primitive
  // re-parented to one of those is the only one converted as a plain object.
  function unbox(v) {
    const p = getPrototypeOf(v);
    if (p === ObjectProto || p === ArrayProto || p === null) return v;
    if (isBrand(numberValueOf, v)) return +v;
    if (isBrand(stringValueOf, v)) return StringCtor(v);
    if (isBrand(booleanValueOf, v)) return apply(booleanValueOf, v, []);
    if (isBrand(bigintValueOf, v)) return apply(bigintValueOf, v, []);
    return v;
  }

  // toLength is ToLength of an array's length (SerializeJSONArray step 4).
  function toLength(n) {
    n = +n;
    if (!(n > 0)) return 0;
    return n >= 9007199254740991 ? 9007199254740991 : n - (n % 1);
  }

  // toJSONValue is the output adapter: a fresh JSON-compatible copy of v,
  // the property key of holder[key] (or "" at the top level). It follows
  // JSON.stringify's SerializeJSONProperty, SerializeJSONObject and
  // SerializeJSONArray step by step: toJSON(key) on objects and BigInts,
  // then unboxing, then own enumerable string keys in their order, array
  // indexes up to length. The reference's own rules apply only where
  // JSON.stringify throws or drops a value (CM-GUEST-08, CM-GUEST-13): a
  // BigInt becomes its decimal string, a function "[Function: name]", a
  // symbol "Symbol(desc)", a cycle "[Circular]", a throwing getter, toJSON or
  // Proxy "[Unserializable: message]"; and an Error without toJSON becomes
  // {name, message, ...own enumerable} (CM-EXEC-22), strings are made
  // well-formed (CM-EXEC-21). undefined stays undefined: the caller drops the
  // member (object), writes null (array) or decides (top level).
  function toJSONValue(v, depth, seen, key) {
    if (v !== null && (typeof v === "object" || typeof v === "function" || typeof v === "bigint")) {
      let toJSON;
      try { toJSON = v.toJSON; } catch (e) { return unserializable(e); }
      if (typeof toJSON === "function") {
        try { v = apply(toJSON, v, [key === undefined ? "" : key]); } catch (e) { return unserializable(e); }
      }
      if (v !== null && typeof v === "object") {
        try { v = unbox(v); } catch (e) { return unserializable(e); }
      }
    }
    switch (typeof v) {
      case "string": return wf(v);
      case "boolean": return v;
      case "number": return (v === v && v !== Infinity && v !== -Infinity) ? v : null;
      case "undefined": return undefined;
      case "bigint": return StringCtor(v);
      case "symbol": try { return wf(StringCtor(v)); } catch (_) { return "Symbol()"; }
      case "function": {
        let n = "";
        try { n = wf(StringCtor(v.name)); } catch (_) {}
        return "[Function" + (n ? ": " + n : "") + "]";
      }
    }
    if (v === null) return null;
    if (depth >= MAX_DEPTH) { tooDeep = true; return null; }
    if (apply(mapHas, seen, [v])) return "[Circular]";
    apply(mapSet, seen, [v, true]);
    try {
      let isArr, isErr;
      try { isArr = isArray(v); isErr = !isArr && v instanceof ErrorCtor; } catch (e) { return unserializable(e); }
      if (isArr) {
        const out = list();
        let n;
        try { n = toLength(v.length); } catch (e) { return unserializable(e); }
        for (let i = 0; i < n; i++) {
          const k = "" + i;
          let x;
          try { x = toJSONValue(v[k], depth + 1, seen, k); } catch (e) { x = unserializable(e); }
          out[i] = x === undefined ? null : x;
        }
        return out;
      }
      const out = create(null);
      // An Error has no enumerable own name or message: without this it
      // would become {} (CM-EXEC-22).
      if (isErr) {
        let n, m;
        try { n = v.name; } catch (_) {}
        try { m = v.message; } catch (_) {}
        out.name = n === undefined ? "Error" : toJSONValue(StringCtor(n), depth + 1, seen, "name");
        out.message = m === undefined ? "" : toJSONValue(StringCtor(m), depth + 1, seen, "message");
      }
      let ks;
      try { ks = objectKeys(v); } catch (e) { return unserializable(e); }
      for (let i = 0; i < ks.length; i++) {
        const k = ks[i];
        if (isErr && (k === "name" || k === "message")) continue;
        let x;
        try { x = toJSONValue(v[k], depth + 1, seen, k); } catch (e) { x = unserializable(e); }
        if (x !== undefined) defineProperty(out, wf(k), { value: x, enumerable: true, writable: true, configurable: true });
      }
      return out;
    } finally {
      apply(mapDelete, seen, [v]);
    }
  }

  // bridgeValue is toJSONValue of a whole value leaving the guest; it throws
  // a RangeError when v nests deeper than MAX_DEPTH.
  function bridgeValue(v) {
    const outer = tooDeep; // a toJSON hook may itself call text() or json()
    tooDeep = false;
    let x, deep;
    try { x = toJSONValue(v, 0, new MapCtor()); } finally { deep = tooDeep; tooDeep = outer; }
    if (deep) throw plainError("RangeError", DEPTH_MESSAGE);
    return x;
  }

  function encode(v) {
    const x = bridgeValue(v);
    return stringify(x === undefined ? null : x);
  }

  function setFatal(code, message) {
    if (!fatal) {
      fatal = record();
      fatal.code = code;
      fatal.message = message;
    }
  }

  // Stack traces never show the runtime's own frames. QuickJS formats every
  // error's stack through the hook stored by Error.prepareStackTrace's setter;
  // ours drops frames of this file and everything below the host's own
  // evaluation (the call that started the cell), then calls a guest's hook,
  // if any, with the same filtered frames. The property becomes a
  // non-configurable accessor so the guest can set its hook but not remove
  // ours. Out of memory is detected by the host, not here (engine/oom.go).
  const PRELUDE_FILE = "codemode-prelude.js";
  // Extension files (prelude.go Extensions) are the runtime's own frames too.
  const PRELUDE_FILES = create(null);
  PRELUDE_FILES[PRELUDE_FILE] = true;
  PRELUDE_FILES["codemode-prelude-mcp.js"] = true;
  PRELUDE_FILES["codemode-prelude-timers.js"] = true;
  PRELUDE_FILES["codemode-prelude-catalog.js"] = true;
  const HOST_FILES = create(null);
  HOST_FILES.start = true; HOST_FILES.poll = true; HOST_FILES.deliver = true; HOST_FILES.boot = true;
  let guestPrepare;
  function guestFrames(frames) {
    const out = [];
    for (let i = 0; i < frames.length; i++) {
      let file;
      try { file = frames[i].getFileName(); } catch (_) { continue; }
      if (HOST_FILES[file] === true) break; // the host's evaluation: nothing below is the guest's
      if (PRELUDE_FILES[file] === true) continue;
      out[out.length] = frames[i];
    }
    // Native frames directly above the host boundary are the prelude's own
    // apply() calls.
    while (out.length > 0) {
      let native = false;
      try { native = out[out.length - 1].isNative(); } catch (_) {}
      if (!native) break;
      out.length--;
    }
    return out;
  }
  function stackOf(frames) {
    let s = "";
    for (let i = 0; i < frames.length; i++) {
      try {
        const c = frames[i];
        const name = c.getFunctionName() || "<anonymous>";
        s += c.isNative() ? "    at " + name + " (native)\n" : "    at " + name + " (" + c.getFileName() + ":" + c.getLineNumber() + ":" + c.getColumnNumber() + ")\n";
      } catch (_) {}
    }
    return s;
  }
  // The cell body is evaluated as CELL_FILE (the AsyncFunction of start).
  const CELL_FILE = "<input>";
  function recordSite(err, frames) {
    for (let i = 0; i < frames.length; i++) {
      const c = frames[i];
      if (c.isNative() || c.getFileName() !== CELL_FILE) continue;
      const site = record();
      site.line = c.getLineNumber();
      site.column = c.getColumnNumber();
      apply(weakMapSet, errorSites, [err, site]);
      return;
    }
  }
  function prepareStackTrace(err, frames) {
    let mine;
    try { mine = guestFrames(frames); } catch (_) { mine = []; }
    try { recordSite(err, mine); } catch (_) {}
    if (typeof guestPrepare === "function") return apply(guestPrepare, undefined, [err, mine]);
    try { return stackOf(mine); } catch (_) { return ""; }
  }
  (function installStackHook() {
    const d = ObjectCtor.getOwnPropertyDescriptor(Error, "prepareStackTrace");
    if (!d || typeof d.set !== "function" || !d.configurable) return;
    apply(d.set, Error, [prepareStackTrace]);
    defineProperty(Error, "prepareStackTrace", {
      enumerable: false, configurable: false,
      get: function () { return guestPrepare; },
      set: function (f) { guestPrepare = f; },
    });
  })();

  // lowerBound is at most the content size (spec/result.ContentSize) of the
  // JSON text s: one byte per character, less 5 for each backslash (an
  // escape is at most 6 characters and stands for at least one byte).
  function lowerBound(s) {
    let n = 0;
    for (let i = apply(strIndexOf, s, ["\\"]); i >= 0; i = apply(strIndexOf, s, ["\\", i + 1])) n++;
    return s.length - 5 * n;
  }

  // pushOutput appends an item unless it takes the output past
  // maxOutputBytes: then the item is dropped (a failed result never carries
  // it, CM-LIM-08) and the cell fails whatever the guest does. The count is
  // a lower bound of the host's; the host measures exactly and decides.
  function pushOutput(item) {
    const s = stringify(item);
    outChars += lowerBound(s) + 1;
    if (!cfg || outChars <= cfg.maxOutputBytes) {
      // Without a host sink (true: taken) the item waits for the poll.
      if (typeof sink !== "function" || apply(sink, undefined, [s]) !== true) output[output.length] = item;
    }
    if (cfg && outChars > cfg.maxOutputBytes) {
      setFatal("output_limit_exceeded", "output exceeds maxOutputBytes (" + cfg.maxOutputBytes + " bytes)");
      throw plainError("RangeError", "output exceeds maxOutputBytes (" + cfg.maxOutputBytes + " bytes)", "output_limit_exceeded");
    }
  }

  function plainError(name, message, code, extra) {
    const e = { name: name, message: message };
    if (code) e.code = code;
    if (extra) {
      const ks = objectKeys(extra);
      for (let i = 0; i < ks.length; i++) e[ks[i]] = extra[ks[i]];
    }
    return e;
  }

  function text(value) {
    let s;
    if (typeof value === "string") s = wf(value);
    else if (value !== null && typeof value === "object") s = encode(value);
    else s = StringCtor(bridgeValue(value));
    const item = record();
    item.type = "text";
    item.text = s;
    pushOutput(item);
  }

  function json(value) {
    const item = record();
    item.type = "json";
    const v = bridgeValue(value); // already a fresh, prototype-free copy
    item.value = v === undefined ? null : v;
    pushOutput(item);
  }

  // request enqueues a host request and returns its promise.
  function request(op, fields) {
    // After the cell's value is determined a request is never sent
    // (CM-NEST-23): it stays pending; the cell is ending anyway.
    if (sealed) return new PromiseCtor(function () {});
    const id = nextId++;
    const msg = record();
    msg.id = id;
    msg.op = op;
    const ks = objectKeys(fields);
    for (let i = 0; i < ks.length; i++) msg[ks[i]] = fields[ks[i]];
    outbox[outbox.length] = msg;
    pendingCount++;
    return new PromiseCtor(function (resolve, reject) {
      apply(mapSet, pending, [id, { resolve: resolve, reject: reject }]);
    });
  }

  // Unawaited nested calls are never lost silently (spec/protocol.md §12.3,
  // CM-NEST-22): tools.call returns a CallPromise, whose `then` (which
  // await, catch, finally and the Promise combinators all call on it)
  // marks it handled. A call that rejects and is still unhandled when the
  // cell's value is determined and nothing is pending fails the cell.
  // Promises derived from it are plain Promises (species).
  const tracked = []; // {tool, handled, rejected, reason} per call, in call order
  const trackedBy = new MapCtor(); // CallPromise -> its entry
  class CallPromise extends PromiseCtor {
    static get [speciesSymbol]() { return PromiseCtor; }
    then(onFulfilled, onRejected) {
      const en = apply(mapGet, trackedBy, [this]);
      if (en) en.handled = true;
      return apply(promiseThen, this, [onFulfilled, onRejected]);
    }
  }
  function track(inner, tool) {
    const en = record();
    en.tool = tool;
    en.handled = false;
    en.rejected = false;
    const p = new CallPromise(function (resolve, reject) {
      apply(promiseThen, inner, [resolve, function (e) {
        en.rejected = true;
        en.reason = e;
        reject(e);
      }]);
    });
    apply(mapSet, trackedBy, [p, en]);
    tracked[tracked.length] = en;
    return p;
  }
  // unhandledFailure is the failure of a cell that left nested calls'
  // rejections unhandled, or null. It keeps the first one's code, so an
  // unhandled tool failure is nested_tool_failed as an uncaught one is.
  function unhandledFailure() {
    let first = null;
    let names = "";
    let n = 0;
    for (let i = 0; i < tracked.length; i++) {
      const en = tracked[i];
      if (!en.rejected || en.handled) continue;
      if (!first) first = en;
      names += (n ? ", " : "") + stringify(StringCtor(en.tool));
      n++;
    }
    if (!first) return null;
    const info = errorInfo(first.reason);
    const r = record();
    r.name = info.name === "" ? "Error" : info.name;
    r.message = "the cell returned but " + n + " nested tool call" + (n === 1 ? "" : "s") +
      " failed and the guest never handled the rejection (tools.call of " + names + "); the first one: " + info.message;
    if (info.code !== undefined) r.code = info.code;
    return r;
  }

  // ask is one catalog query to the host (prelude.CatalogIndex.Answer): op
  // and fields as JSON in, a fresh guest-owned JSON value out. The host
  // answers undefined only when it cannot (no catalog, or this VM has no
  // memory left for the answer).
  function ask(op, fields) {
    const q = record();
    q.op = op;
    if (fields) {
      const ks = objectKeys(fields);
      for (let i = 0; i < ks.length; i++) q[ks[i]] = fields[ks[i]];
    }
    const r = typeof hostQuery === "function" ? hostQuery(stringify(q)) : undefined;
    if (typeof r !== "string") throw plainError("Error", "the run's tool catalog is unavailable in this cell (the host gave no answer to " + op + "; the cell may be out of memory)");
    return parse(r);
  }

  // has reports whether id is a catalog id of the cell's catalog.
  function has(id) {
    const f = record();
    f.id = StringCtor(id);
    return ask("has", f) === true;
  }

  // suggestions are up to 3 ids ranked for id as tools.search ranks
  // (spec/protocol.md §7), whole-name matches only when id has no words.
  function suggestions(id) {
    const f = record();
    f.id = StringCtor(id);
    return ask("suggest", f);
  }

  function unknownTool(id) {
    const sug = suggestions(id);
    let msg = "Unknown tool id " + stringify(StringCtor(id)) + ".";
    if (sug.length) msg += " Did you mean " + sug.join(", ") + "?";
    msg += " Use tools.search(query) or ALL_TOOLS to find tool ids.";
    return plainError("ToolError", msg, "invalid_input", { suggestions: sug });
  }

  const tools = create(null);
  defineProperty(tools, "search", { enumerable: true, value: search });
  function search(query, options) {
    counts.search++;
    let limit = cfg.searchDefaultLimit;
    if (options !== null && typeof options === "object") {
      let l;
      try { l = options.limit; } catch (_) {}
      if (typeof l === "number" && isInteger(l) && l > 0) limit = l;
    }
    limit = mathMin(limit, cfg.maxSearchLimit);
    // Ranked on the host (spec/protocol.md §7, prelude.CatalogIndex).
    const f = record();
    f.q = StringCtor(query === undefined ? "" : query);
    f.limit = limit;
    return PromiseCtor.resolve(ask("search", f));
  }
  defineProperty(tools, "describe", {
    enumerable: true,
    value: function describe(id) {
      counts.describe++;
      const f = record();
      f.id = StringCtor(id);
      const e = ask("describe", f);
      if (e === null) return PromiseCtor.reject(unknownTool(id));
      if (e.parameters === undefined) e.parameters = { type: "object", properties: {} };
      return PromiseCtor.resolve(e);
    },
  });
  defineProperty(tools, "call", { enumerable: true, value: call });
  function call(id, input) {
    counts.call++;
    if (typeof id !== "string" || !has(id)) return track(PromiseCtor.reject(unknownTool(id)), StringCtor(id));
    const t = { id: id };
    const fields = record();
    fields.tool = t.id;
    try {
      fields.input = bridgeValue(input === undefined ? {} : input);
    } catch (e) { // too deep: rejected like the host rejects it (depth.go)
      if (e === null || typeof e !== "object" || e.message !== DEPTH_MESSAGE) throw e;
      return track(PromiseCtor.reject(plainError("ToolError", e.message, "invalid_input")), t.id);
    }
    return track(request("call", fields), t.id);
  }

  // Helper names never installed: the API itself, names the language calls
  // implicitly (then makes tools a thenable, toJSON runs in JSON.stringify)
  // and every Object.prototype member (CM-GUEST-06, CM-CAT-06).
  const RESERVED = create(null);
  const reservedList = ["search", "describe", "call", "then", "toJSON", "catch", "finally", "__proto__", ""];
  for (let i = 0; i < reservedList.length; i++) RESERVED[reservedList[i]] = true;
  const protoNames = getOwnPropertyNames(ObjectCtor.prototype);
  for (let i = 0; i < protoNames.length; i++) RESERVED[protoNames[i]] = true;

  // toolsAPI is the guest's tools: a Proxy of the frozen tools object whose
  // get answers a helper name (prelude.CatalogIndex safeName, the entry's
  // name with every character outside [A-Za-z0-9_$] made "_"; names two
  // entries share have none) with a function calling that entry, asked of
  // the host on first use and kept, so tools.x === tools.x. The helpers are
  // not own properties (`in` and Object.keys do not list them): a frozen
  // target cannot report properties it lacks, and holding one per catalog
  // entry is what made VMs grow with the catalog (issue 28 N3).
  const helperCache = new MapCtor();
  function helper(name) {
    if (apply(mapHas, helperCache, [name])) return apply(mapGet, helperCache, [name]);
    const f = record();
    f.name = name;
    const id = ask("helper", f);
    let fn;
    if (typeof id === "string") fn = function (input) { return call(id, input); };
    apply(mapSet, helperCache, [name, fn]);
    return fn;
  }
  function toolsAPI() {
    const handler = create(null);
    handler.get = function (target, key, receiver) {
      if (typeof key !== "string" || own(target, key) || RESERVED[key] === true) return apply(ReflectGet, undefined, [target, key, receiver]);
      return helper(key);
    };
    return new ProxyCtor(freeze(tools), freeze(handler));
  }

  function yield_control(reason) {
    const fields = record();
    fields.reason = reason === undefined ? "" : StringCtor(reason);
    return request("yield", fields);
  }

  const API = freeze({
    list: function list(prefix) {
      return PromiseCtor.resolve([]);
    },
    read: function read(path) {
      return PromiseCtor.reject(plainError("Error", "Unknown API path " + stringify(StringCtor(path)) + "."));
    },
  });

  function defineGlobal(name, value) {
    defineProperty(global, name, { value: value, enumerable: false, writable: false, configurable: false });
  }

  // Extension files evaluated after this one (prelude.go Extensions, e.g.
  // mcp.js) register with __codemode.extend(install) before boot; install
  // gets the bridge internals and returns {boot(config)}, which runs first in
  // boot and may define globals (MCP, API) that then replace the defaults.
  const extensions = [];
  const kit = freeze({
    request: request,
    track: track,
    plainError: plainError,
    toJSON: function (v) { return toJSONValue(v, 0, new MapCtor()); },
    counts: counts,
    defineGlobal: defineGlobal,
    // tools.search and tools.call, for catalog.js's handles, and the
    // host's catalog query.
    search: search,
    call: call,
    ask: ask,
  });
  function defineDefault(name, value) {
    if (!own(global, name)) defineGlobal(name, value);
  }

  // boot and start are one-shot: the host calls each once, before any guest
  // code runs, so a guest calling them finds them spent (it cannot swap its
  // catalog or config; the host checks every id anyway).
  let booted = false;
  let started = false;
  // store.js, evaluated just before this file, left its installer here.
  const installStore = global.__codemodeStoreKit;
  delete global.__codemodeStoreKit;
  const host = freeze({
    extend: function (install) {
      if (booted) throw plainError("Error", "__codemode.extend is reserved for the host");
      extensions[extensions.length] = install(kit);
      return "ok";
    },
    boot: function (config) {
      if (booted) throw plainError("Error", "__codemode.boot is reserved for the host");
      booted = true;
      cfg = typeof config === "string" ? parse(config) : config;
      config = cfg;
      // ALL_TOOLS is read from the host on first use and kept: a cell that
      // never reads it holds none of the catalog (issue 28 N3).
      let allTools;
      const ALL_TOOLS_PAGE = 512;
      defineProperty(global, "ALL_TOOLS", {
        enumerable: false, configurable: false,
        get: function ALL_TOOLS() {
          if (allTools === undefined) {
            const all = [];
            const page = record();
            page.from = 0;
            page.limit = ALL_TOOLS_PAGE;
            for (;;) {
              const got = ask("all", page);
              for (let i = 0; i < got.length; i++) all[all.length] = freeze(got[i]);
              if (got.length < ALL_TOOLS_PAGE) break;
              page.from += ALL_TOOLS_PAGE;
            }
            allTools = freeze(all);
          }
          return allTools;
        },
      });
      defineGlobal("tools", toolsAPI());
      for (let i = 0; i < extensions.length; i++) extensions[i].boot(config);
      defineDefault("MCP", freeze(create(null)));
      defineGlobal("namespaces", buildNamespaces(config.namespaces, { request: request, track: track, toJSONValue: toJSONValue, defineGlobal: defineGlobal, counts: counts }));
      defineDefault("API", API);
      defineGlobal("text", text);
      defineGlobal("json", json);
      defineGlobal("yield_control", yield_control);
      installStore(config, { request: request, record: record, toJSONValue: toJSONValue, defineGlobal: defineGlobal });
      return "ok";
    },
    start: function (code) {
      if (started) throw plainError("Error", "__codemode.start is reserved for the host");
      started = true;
      let fn;
      try {
        fn = new AsyncFunction(code);
      } catch (e) {
        failure = errorInfo(e);
        state = "error";
        return "error";
      }
      state = "running";
      let p;
      try {
        p = apply(fn, undefined, []);
      } catch (e) {
        failure = errorInfo(e);
        state = "error";
        return "error";
      }
      apply(promiseThen, p, [
        function (v) {
          try {
            valueJSON = encode(v);
            state = "done";
          } catch (e) {
            failure = errorInfo(e);
            state = "error";
          }
        },
        function (e) {
          failure = errorInfo(e);
          state = "error";
        },
      ]);
      return p; // the host watches it to seal the bridge the moment it settles
    },
    // seal: the cell's value is determined (the host saw its promise settle,
    // checked after every job); requests made from now on are never sent.
    seal: function () {
      sealed = true;
      return "sealed";
    },
    // poll hands the host everything new, as one JSON text.
    poll: function () {
      if (state === "done" && pendingCount === 0) {
        const f = unhandledFailure();
        if (f) {
          failure = f;
          state = "error";
        }
      }
      const out = output;
      const req = outbox;
      output = list();
      outbox = list();
      let s = '{"state":' + stringify(state) +
        ',"pending":' + stringify(pendingCount) +
        ',"counts":' + stringify(counts) +
        ',"output":' + stringify(out) +
        ',"requests":' + stringify(req);
      if (fatal) s += ',"fatal":' + stringify(fatal);
      if (state === "done") s += ',"value":' + valueJSON;
      if (state === "error") s += ',"failure":' + stringify(failure);
      return s + "}";
    },
    // deliver settles requests. text is JSON of [{id, ok, value} | {id,
    // ok:false, error}]; parsing it here (not as a JS literal) keeps keys such
    // as "__proto__" plain data.
    deliver: function (text) {
      const ds = parse(text);
      for (let i = 0; i < ds.length; i++) {
        const d = ds[i];
        const p = apply(mapGet, pending, [d.id]);
        if (!p) continue;
        apply(mapDelete, pending, [d.id]);
        pendingCount--;
        if (d.ok) p.resolve(d.value);
        else {
          if (d.error !== null && typeof d.error === "object") apply(weakSetAdd, hostErrors, [d.error]);
          p.reject(d.error);
        }
      }
      return "ok";
    },
  });
  // Configurable: the host deletes it once it holds the functions.
  defineProperty(global, "__codemode", { value: host, enumerable: false, writable: false, configurable: true });
})(globalThis);
"prelude-loaded";
