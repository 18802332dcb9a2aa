// Guest-side probe for the runtime's bridge internals (CM-SEC-01). Page 000
// lists built-in code-mode globals of the runtime's own (__openclaw*), so a
// reachable internal is not by itself a fault; what must not happen is that
// one leads out of the realm. bridgeReport() lists what reads like a bridge
// internal; bridgeForge(ids) then calls every such function with requests
// for tool ids outside the run's catalog (the spec checks at the harness
// that none was invoked).
//
// It walks every value reachable from globalThis (own string and symbol keys,
// enumerable or not, prototypes, accessor functions, function prototypes)
// without running getters, and reports each key or function name that reads
// like a bridge internal. It also reads the source text of every non-native
// function it reaches (Function.prototype.toString) and tries each
// identifier in it as a global name.
var bridgeReport = (function () {
  const G = globalThis;
  const ownKeys = Reflect.ownKeys;
  const getDesc = Object.getOwnPropertyDescriptor;
  const getProto = Object.getPrototypeOf;
  const fnToString = Function.prototype.toString;
  const apply = Reflect.apply;
  // Standard names that match the pattern below.
  const STANDARD = new Set(["__proto__", "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__"]);
  const SUSPECT = /^__|bridge|poll|deliver|outbox|inbox|drain|settle(?!d$)|host_?call/i;
  const MAX_VALUES = 50000;

  function keyName(k) { return typeof k === "symbol" ? k.toString() : String(k); }
  // Bridge-like functions the last walk found: [path, function, holder].
  let internals = [];

  async function bridgeReport() {
    const found = [];
    const seen = new Set();
    const queue = [];
    let visited = 0, unvisited = 0;
    function push(v, path) {
      if ((typeof v !== "object" && typeof v !== "function") || v === null || seen.has(v)) return;
      seen.add(v);
      queue.push([v, path]);
    }
    function suspect(name, path, what, fn, holder) {
      if (STANDARD.has(name) || !SUSPECT.test(name)) return;
      found.push(path + ": " + what + " " + JSON.stringify(name));
      if (typeof fn === "function") internals.push([path + " " + name, fn, holder]);
      else if (typeof fn === "object" && fn !== null) { // the functions of a bridge-like object
        let ks = [];
        try { ks = ownKeys(fn); } catch (e) {}
        for (const k of ks) {
          let d;
          try { d = getDesc(fn, k); } catch (e) {}
          if (d && typeof d.value === "function") internals.push([path + " " + name + "." + keyName(k), d.value, fn]);
        }
      }
    }
    internals = [];
    const globalNames = ownKeys(G).map(keyName);
    push(G, "globalThis");
    const sources = [];
    while (queue.length > 0) {
      if (visited >= MAX_VALUES) { unvisited = queue.length; break; }
      const [v, path] = queue.shift();
      visited++;
      if (typeof v === "function") {
        let name = "";
        try { name = String(v.name); } catch (e) {}
        suspect(name, path, "function named", v, undefined);
        let src = "";
        try { src = apply(fnToString, v, []); } catch (e) {}
        if (src && !/\{\s*\[native code\]\s*\}\s*$/.test(src)) sources.push([src, path]);
      }
      let keys = [];
      try { keys = ownKeys(v); } catch (e) {}
      for (const k of keys) {
        const name = keyName(k);
        const p = path + "[" + JSON.stringify(name) + "]";
        let d;
        try { d = getDesc(v, k); } catch (e) { d = undefined; }
        suspect(name, path, "property", d && ("value" in d ? d.value : d.get), v);
        if (!d) continue;
        if ("value" in d) push(d.value, p);
        if (d.get) push(d.get, p + "(getter)");
        if (d.set) push(d.set, p + "(setter)");
      }
      let proto = null;
      try { proto = getProto(v); } catch (e) {}
      push(proto, path + ".[[Prototype]]");
    }
    // Identifiers in the source of every reachable non-native function (the
    // runtime's own helpers among them) tried as global names.
    const tried = new Set();
    for (const [src, path] of sources) {
      for (const id of src.match(/[A-Za-z_$][\w$]*/g) || []) {
        if (tried.has(id)) continue;
        tried.add(id);
        let present = false;
        try { present = id in G; } catch (e) {}
        if (present && !STANDARD.has(id) && SUSPECT.test(id)) {
          found.push("globalThis[" + JSON.stringify(id) + "], named in the source of " + path);
          let fn;
          try { fn = G[id]; } catch (e) {}
          if (typeof fn === "function") internals.push(["globalThis." + id, fn, G]);
        }
      }
    }
    return JSON.stringify({visited, unvisited, found: [...new Set(found)].slice(0, 40), internals: internals.length, globalNames: globalNames.length, functionsRead: sources.length});
  }
  bridgeReport.internals = () => internals;
  return bridgeReport;
})();

// bridgeForge calls every internal the last bridgeReport() found with
// request-shaped arguments for each id in ids (tools outside the run's
// catalog), awaiting what they return, and reports how many calls it made.
async function bridgeForge(ids) {
  const shapes = (id) => [[id, {}], ["call", JSON.stringify([id, {}])], ["call", [id, {}]], [{op: "call", tool: id, input: {}}],
    [JSON.stringify({op: "call", tool: id, input: {}})], [JSON.stringify([{id: 1, op: "call", tool: id, input: {}}])]];
  let calls = 0;
  for (const [, fn, holder] of bridgeReport.internals()) {
    for (const id of ids) {
      for (const args of shapes(id)) {
        calls++;
        try { await Promise.race([Reflect.apply(fn, holder, args), null]); } catch (e) {}
      }
    }
  }
  return calls;
}
