// Guest-side probe for the runtime's bridge internals (CM-SEC-01): the
// functions a runtime uses to drain the guest's requests and output or to
// settle its nested calls must be out of the guest's reach. The cell returns
// `await bridgeReport()`.
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

  return async function bridgeReport() {
    const found = [];
    const seen = new Set();
    const queue = [];
    let visited = 0, unvisited = 0;
    function push(v, path) {
      if ((typeof v !== "object" && typeof v !== "function") || v === null || seen.has(v)) return;
      seen.add(v);
      queue.push([v, path]);
    }
    function suspect(name, path, what) {
      if (!STANDARD.has(name) && SUSPECT.test(name)) found.push(path + ": " + what + " " + JSON.stringify(name));
    }
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
        suspect(name, path, "function named");
        let src = "";
        try { src = apply(fnToString, v, []); } catch (e) {}
        if (src && !/\{\s*\[native code\]\s*\}\s*$/.test(src)) sources.push([src, path]);
      }
      let keys = [];
      try { keys = ownKeys(v); } catch (e) {}
      for (const k of keys) {
        const name = keyName(k);
        const p = path + "[" + JSON.stringify(name) + "]";
        suspect(name, path, "property");
        let d;
        try { d = getDesc(v, k); } catch (e) { continue; }
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
        if (present && !STANDARD.has(id) && SUSPECT.test(id)) found.push("globalThis[" + JSON.stringify(id) + "], named in the source of " + path);
      }
    }
    return JSON.stringify({visited, unvisited, found: [...new Set(found)].slice(0, 40), globalNames: globalNames.length, functionsRead: sources.length});
  };
})();
