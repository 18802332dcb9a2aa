// Tests of mcp.js, run inside QuickJS by mcp_test.go after the prelude and
// its extensions are booted with the MCP table in mcp_test.go.
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

  test("MCP and every server object are frozen and have no prototype", () => {
    eq("MCP proto", Object.getPrototypeOf(MCP), null);
    eq("server proto", Object.getPrototypeOf(MCP.acmeTools2), null);
    eq("frozen", [Object.isFrozen(MCP), Object.isFrozen(MCP.acmeTools2), Object.isFrozen(MCP.acmeTools2.resources)], [true, true, true]);
    eq("members", Object.keys(MCP.acmeTools2), ["proto", "constructor", "$api", "resources", "prompts"]);
    eq("no pollution", [typeof Object.prototype.proto, ({}).constructor === Object], ["undefined", true]);
  });
  test("a guest cannot swap the table after boot", () => {
    let threw = false;
    // Either the bridge global is gone or its extend is spent after boot.
    try { __codemode.extend(() => ({ boot() {} })); } catch (e) { threw = true; }
    eq("extend is spent", threw, true);
    try { MCP.acmeTools2.proto = 1; } catch (e) {}
    eq("tool kept", typeof MCP.acmeTools2.proto, "function");
    eq("API has only list and read", Object.keys(API), ["list", "read"]);
  });
  // mcp_test.go polls the bridge afterwards: exactly these three requests.
  MCP.acmeTools2.proto({ a: 1 }).catch(() => {});
  MCP.acmeTools2.resources.read({ uri: "memo://one" }).catch(() => {});
  MCP.acmeTools2.prompts.get({ name: "brief", arguments: { topic: "x" } }).catch(() => {});
  settle(MCP.acmeTools2.proto("x"), "a non-object input rejects", (e, kind) => eq("code", [kind, e.code], ["err", "invalid_input"]));
  settle(MCP.acmeTools2.proto({}, {}), "a second argument rejects", (e, kind) => eq("code", [kind, e.code], ["err", "invalid_input"]));
  settle(MCP.acmeTools2.prompts.get({ name: "b", arguments: { n: 1 } }), "prompt arguments are strings", (e, kind) => eq("code", [kind, e.code], ["err", "invalid_input"]));
  settle(API.list(), "API.list lists every file", (v) => eq("paths", v, [{ path: "mcp/index.d.ts", bytes: 5 }, { path: "mcp/acmeTools2.d.ts", bytes: 6, server: "acme.tools-2" }]));
  settle(API.list("mcp/acme"), "API.list filters by prefix", (v) => eq("paths", v.map((f) => f.path), ["mcp/acmeTools2.d.ts"]));
  settle(API.read("mcp/index.d.ts"), "API.read returns the text", (v) => eq("text", v, "index"));
  settle(API.read("mcp/./index.d.ts"), "API.read rejects . segments", (e, kind) => eq("shape", [kind, e.name, e.code], ["err", "Error", "invalid_input"]));
  settle(API.read("mcp/../mcp/index.d.ts"), "API.read rejects .. segments", (e, kind) => eq("kind", kind, "err"));
  settle(API.list("../"), "API.list rejects .. segments", (e, kind) => eq("kind", kind, "err"));
  settle(API.read("mcp/nope.d.ts"), "API.read rejects unknown paths", (e, kind) => eq("msg", [kind, /^Unknown API path "mcp\/nope\.d\.ts"\./.test(e.message)], ["err", true]));
  settle(MCP.acmeTools2.$api(), "$api() is the whole file", (v) => eq("header", [v.server, v.path, v.text, v.tools.map((t) => t.name), "inputSchema" in v.tools[0]],
    ["acme.tools-2", "mcp/acmeTools2.d.ts", "server text", ["proto", "constructor"], false]));
  settle(MCP.acmeTools2.$api("__proto__", { schema: true }), "$api(mcpName, {schema}) is one tool with its schema", (v) => eq("header", [v.text, v.tools.length, v.tools[0].inputSchema],
    ["proto header", 1, { type: "object" }]));
  settle(MCP.acmeTools2.$api("nope"), "$api of an unknown tool rejects", (e, kind) => eq("code", [kind, e.name, e.code], ["err", "ToolError", "invalid_input"]));
  return { failures, results };
})
