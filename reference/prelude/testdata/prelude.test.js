// Tests of prelude.js, run inside QuickJS by prelude_test.go after the prelude
// is booted with the catalog in prelude_test.go. The completion value is a
// JSON list of failures (empty when everything passed).
(function () {
  const failures = [];
  const results = [];
  function eq(name, got, want) {
    const g = JSON.stringify(got), w = JSON.stringify(want);
    if (g !== w) failures.push(name + ": got " + g + ", want " + w);
  }
  function test(name, fn) {
    try { fn(); } catch (e) { failures.push(name + ": threw " + e); }
  }
  function settle(p, name, cb) {
    p.then((v) => results.push([name, "ok", v, cb]), (e) => results.push([name, "err", e, cb]));
  }

  test("globals exist", () => {
    eq("types", [typeof ALL_TOOLS, typeof tools, typeof MCP, typeof namespaces, typeof text, typeof json, typeof yield_control, typeof API],
      ["object", "object", "object", "object", "function", "function", "function", "object"]);
  });
  test("ALL_TOOLS is compact and frozen", () => {
    eq("keys", Object.keys(ALL_TOOLS[0]).sort(), ["description", "id", "name", "source"]);
    eq("frozen", Object.isFrozen(ALL_TOOLS), true);
  });
  test("helpers: unambiguous names only, never shadowing search/describe/call", () => {
    eq("add helper", typeof tools.add, "function");
    eq("collision omitted", typeof tools.web_search, "undefined");
    eq("search not shadowed", tools.search.name, "search");
    eq("prototype names do not pollute", ({}).constructor === Object && typeof Object.prototype.hasOwnProperty, "function");
    eq("tool named constructor gets no helper over a prototype", Object.getPrototypeOf(tools), null);
  });
  test("stacks: QuickJS format without prelude frames; a guest hook still runs", () => {
    function thrower() { try { null.x; } catch (e) { return e.stack; } }
    const st = thrower();
    eq("has the guest frame", /^    at thrower \(/.test(st), true);
    eq("no prelude frames", st.indexOf("codemode-prelude.js"), -1);
    Error.prepareStackTrace = (e, frames) => "guest:" + frames.length;
    eq("guest hook", thrower().slice(0, 6), "guest:");
    let files = "";
    Error.prepareStackTrace = (e, frames) => frames.map((c) => c.getFileName()).join(",");
    tools.search({ toString() { files = new Error().stack; return "zz"; } }); // toString runs inside the prelude
    eq("the hook ran", files.length > 0, true);
    eq("guest hook sees no prelude frames", files.indexOf("codemode-prelude.js"), -1);
    Error.prepareStackTrace = undefined;
    eq("hook cannot be removed", delete Error.prepareStackTrace, false);
  });
  test("the bridge is out of the guest's reach", () => {
    eq("no bridge global", typeof globalThis.__codemode, "undefined");
    eq("catalog kept", ALL_TOOLS.length > 0, true);
  });
  test("output adapter", () => {
    const cyc = { a: 1 }; cyc.self = cyc;
    json({ f() {}, s: Symbol("q"), b: 10n, u: undefined, cyc, d: new Date(0), bin: new Uint8Array(2),
      get bad() { throw new Error("nope"); } });
    text(42);
    text("plain");
  });
  test("tools.call returns a Promise whose handling is tracked (CM-NEST-22)", () => {
    const p = tools.call("openclaw:core:nope", {});
    eq("a Promise", p instanceof Promise, true);
    eq("then is callable", typeof p.then, "function");
    eq("derived promises are plain", Object.getPrototypeOf(p.catch(() => {})) === Promise.prototype, true);
  });
  settle(tools.search("add numbers"), "search ranks add first", (v) => eq("first", v[0].name, "add"));
  settle(tools.search("", { limit: 2 }), "empty query respects limit", (v) => eq("len", v.length, 2));
  settle(tools.search("", { limit: 1000 }), "limit capped at maxSearchLimit", (v) => eq("len", v.length, 3));
  settle(tools.describe("openclaw:core:add"), "describe adds parameters", (v) => eq("params", v.parameters.required, ["a", "b"]));
  settle(tools.call("openclaw:core:nope", {}), "unknown id rejects with guidance", (e) => {
    eq("is plain", Object.getPrototypeOf(e), Object.prototype);
    eq("mentions search", /tools\.search/.test(e.message), true);
    eq("code", e.code, "invalid_input");
  });
  settle(API.read("../etc/passwd"), "API.read rejects unknown paths", (e) => eq("message", typeof e.message, "string"));

  return { failures, results };
})
