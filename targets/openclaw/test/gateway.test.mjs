// Offline tests of the gateway mode's translations (lib/gateway.mjs): the
// gateway config, configuration families, the transcript and the parent of
// a nested call. The gateway itself runs only against a real install
// (make openclaw-conformance, feature agent-turn).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import zlib from "node:zlib";
import { fileURLToPath } from "node:url";
import { familyKey, gatewayConfig, nestedParent, pluginGroups, sessionKeyOf, sqliteSessionEntries, transcriptMessages, PROVIDER_ID } from "../lib/gateway.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));

const prep = {
  run: "run-1",
  agentId: "agent-1",
  sessionId: "s",
  sessionKey: "agent:agent-1:s",
  senderId: "x",
  channel: "conformance",
  codeMode: { enabled: true, timeoutMs: 1000 },
  policy: { deny: ["weather"] },
  tools: [
    { name: "echo", description: "Echo", source: "openclaw", owner: "core" },
    { name: "weather", description: "Weather", source: "plugin", owner: "forecast", parameters: { type: "object" } },
    { name: "pick_color", description: "Pick", source: "client", owner: "webapp" },
  ],
};

test("pluginGroups hosts core and plugin tools in one plugin per owner and leaves client tools to the request", () => {
  const g = pluginGroups(prep.tools);
  assert.deepEqual([...g.keys()], ["core", "forecast"]);
  assert.deepEqual(g.get("forecast").map((t) => t.name), ["weather"]);
});

test("gatewayConfig passes codeMode raw, puts the policy on the agent and keeps the agent to the harness's tools", () => {
  const dirs = new Map([["core", "/p/core"], ["forecast", "/p/forecast"]]);
  const c = gatewayConfig({ prep, model: "m", port: 1234, token: "t", providerBaseUrl: "http://127.0.0.1:9/p/v1", pluginDirs: dirs, stateDir: "/s" });
  assert.deepEqual(c.tools, { allow: ["core", "forecast"], codeMode: { enabled: true, timeoutMs: 1000 } });
  assert.deepEqual(c.agents.list, [{ id: "agent-1", default: true, tools: { deny: ["weather"] } }]);
  assert.deepEqual(c.plugins, { allow: ["core", "forecast"], load: { paths: ["/p/core", "/p/forecast"] }, entries: { core: { hooks: { allowConversationAccess: true } }, forecast: { hooks: { allowConversationAccess: true } } } });
  assert.equal(c.agents.defaults.model.primary, `${PROVIDER_ID}/m`);
  assert.equal(c.models.providers[PROVIDER_ID].baseUrl, "http://127.0.0.1:9/p/v1");
  assert.equal(c.gateway.bind, "loopback");
  assert.equal(c.gateway.http.endpoints.chatCompletions.enabled, true);
  assert.equal(c.gateway.controlUi.enabled, false);
  // Absent codeMode stays absent; a raw non-object value passes unchanged.
  const { codeMode, ...noCM } = prep;
  assert.equal("codeMode" in gatewayConfig({ prep: noCM, model: "m", port: 1, token: "t", providerBaseUrl: "u", pluginDirs: dirs, stateDir: "/s" }).tools, false);
  assert.deepEqual(gatewayConfig({ prep: { ...prep, agentCodeMode: false }, model: "m", port: 1, token: "t", providerBaseUrl: "u", pluginDirs: dirs, stateDir: "/s" }).agents.list[0].tools, { deny: ["weather"], codeMode: false });
  assert.equal(gatewayConfig({ prep: { ...prep, codeMode: "yes" }, model: "m", port: 1, token: "t", providerBaseUrl: "u", pluginDirs: dirs, stateDir: "/s" }).tools.codeMode, "yes");
});

test("gatewayConfig gives the run's MCP servers to the gateway as mcp.servers and allows bundle-mcp's tools", () => {
  const dirs = new Map([["core", "/p/core"], ["forecast", "/p/forecast"]]);
  const withMcp = { ...prep, mcpServers: [{ name: "docs", transport: "http", url: "http://127.0.0.1:7/mcp" }, { name: "fs", transport: "stdio", command: "/bin/srv", args: ["-x"] }] };
  const c = gatewayConfig({ prep: withMcp, model: "m", port: 1, token: "t", providerBaseUrl: "u", pluginDirs: dirs, stateDir: "/s" });
  assert.deepEqual(c.mcp, { servers: { docs: { url: "http://127.0.0.1:7/mcp", transport: "streamable-http" }, fs: { command: "/bin/srv", args: ["-x"] } } });
  assert.deepEqual(c.tools.allow, ["core", "forecast", "bundle-mcp"]);
  const none = gatewayConfig({ prep, model: "m", port: 1, token: "t", providerBaseUrl: "u", pluginDirs: dirs, stateDir: "/s" });
  assert.equal("mcp" in none, false, "a run without MCP servers gives the gateway none");
  assert.notEqual(familyKey(withMcp, "m"), familyKey(prep, "m"), "the servers are part of the family");
});

test("familyKey changes with what the gateway is made of and not with the run's identity", () => {
  const k = familyKey(prep, "m");
  assert.equal(familyKey({ ...prep, run: "run-2", sessionId: "other" }, "m"), k);
  assert.notEqual(familyKey({ ...prep, codeMode: true }, "m"), k);
  assert.notEqual(familyKey({ ...prep, policy: null }, "m"), k);
  assert.notEqual(familyKey(prep, "m2"), k);
  assert.notEqual(familyKey({ ...prep, agentCodeMode: false }, "m"), k);
  const { codeMode, ...noCM } = prep;
  assert.notEqual(familyKey(noCM, "m"), familyKey({ ...prep, codeMode: null }, "m"));
});

test("transcriptMessages rebuilds the turn from the gateway's session entries", () => {
  const entries = [
    { type: "session", id: "s" },
    { type: "message", message: { role: "user", content: "hi" } },
    { type: "message", message: { role: "assistant", content: [{ type: "toolCall", id: "call_0", name: "exec", arguments: { code: "return 1" } }] } },
    { type: "message", message: { role: "toolResult", toolCallId: "call_0", toolName: "exec", content: [{ type: "text", text: '{"status":"completed","value":1}' }] } },
    { type: "custom", customType: "x" },
    { type: "message", message: { role: "assistant", content: [{ type: "text", text: "one" }] } },
  ];
  assert.deepEqual(transcriptMessages(entries), [
    { role: "user", content: "hi" },
    { role: "assistant", content: null, tool_calls: [{ id: "call_0", type: "function", function: { name: "exec", arguments: '{"code":"return 1"}' } }] },
    { role: "tool", tool_call_id: "call_0", content: '{"status":"completed","value":1}' },
    { role: "assistant", content: "one" },
  ]);
});

test("nestedParent reads the parent out of OpenClaw's nested call id and gives none for a direct call", () => {
  assert.equal(nestedParent("tool_search_code:call_0:weather:1", "weather"), "call_0");
  assert.equal(nestedParent("tool_search_code:a:b:c.d:12", "c.d"), "a:b");
  assert.equal(nestedParent("tool_search_code:direct:x:1", "x"), "");
  assert.equal(nestedParent("call_3", "weather"), "");
  assert.equal(nestedParent("tool_search_code:call_0:other:1", "weather"), "");
});

test("sessionKeyOf finds the chat-completions session of a user, case-insensitively, and names the keys it had otherwise", () => {
  const keys = ["agent:a:main", "agent:a:openai-user:turn-7-abc"];
  assert.equal(sessionKeyOf(keys, "Turn-7-ABC"), "agent:a:openai-user:turn-7-abc");
  assert.throws(() => sessionKeyOf(keys, "turn-8"), /no session for user "turn-8" \(keys: agent:a:main, agent:a:openai-user:turn-7-abc\)/);
  assert.throws(() => sessionKeyOf(keys, "abc"), /no session/, "a suffix of the user is not the user");
});

// node:sqlite and zstd come with Node ≥ 22.5 / 23.8 (the installed
// OpenClaw 2026.9.6 runs on Node 24); an older node on PATH cannot open a
// generation-2 session database at all.
const sqlite = process.getBuiltinModule?.("node:sqlite");
const noSqlite = !sqlite || typeof zlib.zstdCompressSync !== "function" ? `node ${process.version} has no node:sqlite or zstd (Node ≥ 23.8 has both)` : false;

test("sqliteSessionEntries reads the active branch of a generation-2 session in order, JSON and zstd events alike", { skip: noSqlite }, () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "openclaw-gw-db-")), "openclaw-agent.sqlite");
  const db = new sqlite.DatabaseSync(file);
  // The columns of OpenClaw 2026.9.6's tables that the reader uses.
  db.exec(`CREATE TABLE session_nodes (session_key TEXT PRIMARY KEY, current_session_id TEXT NOT NULL);
    CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, event_zstd BLOB, PRIMARY KEY (session_id, seq));
    CREATE TABLE session_transcript_active_events (session_id TEXT NOT NULL, active_position INTEGER NOT NULL, event_seq INTEGER NOT NULL, PRIMARY KEY (session_id, active_position));`);
  db.prepare("INSERT INTO session_nodes VALUES (?, ?)").run("agent:a:openai-user:u-1", "s-new");
  db.prepare("INSERT INTO session_nodes VALUES (?, ?)").run("agent:a:openai-user:u-2", "s-other");
  const ev = db.prepare("INSERT INTO transcript_events VALUES (?, ?, ?, ?)");
  const user = { type: "message", message: { role: "user", content: "hi" } };
  const call = { type: "message", message: { role: "assistant", content: [{ type: "toolCall", id: "call_1", name: "exec", arguments: { code: "return 1" } }] } };
  const abandoned = { type: "message", message: { role: "assistant", content: [{ type: "text", text: "rewound" }] } };
  const result = { type: "message", message: { role: "toolResult", toolCallId: "call_1", content: [{ type: "text", text: "1" }] } };
  ev.run("s-new", 0, JSON.stringify(user), null);
  ev.run("s-new", 1, JSON.stringify(abandoned), null);
  ev.run("s-new", 2, null, zlib.zstdCompressSync(Buffer.from(JSON.stringify(call))));
  ev.run("s-new", 3, JSON.stringify(result), null);
  ev.run("s-old", 0, JSON.stringify({ type: "message", message: { role: "user", content: "old window" } }), null);
  ev.run("s-other", 0, JSON.stringify({ type: "message", message: { role: "user", content: "other user" } }), null);
  const act = db.prepare("INSERT INTO session_transcript_active_events VALUES (?, ?, ?)");
  // Active order: user, call (zstd), result; seq 1 is off the branch.
  act.run("s-new", 0, 0);
  act.run("s-new", 1, 2);
  act.run("s-new", 2, 3);
  act.run("s-other", 0, 0);
  db.close();
  assert.deepEqual(sqliteSessionEntries(file, "U-1"), [user, call, result]);
  assert.deepEqual(transcriptMessages(sqliteSessionEntries(file, "u-1")).map((m) => m.role), ["user", "assistant", "tool"]);
  assert.throws(() => sqliteSessionEntries(file, "u-3"), /no session for user "u-3"/);
});

// A generation-2 dist whose run setup turns code mode off: enough for the
// adapter to prepare a run, so that agent.turn's own checks can be seen.
function gen2OffDist() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "openclaw-v2-gw-"));
  const names = ["createAgentHarnessToolSurfaceRuntimeCore", "addClientToolsToToolSearchCatalog", "addClientToolsToCodeModeCatalog", "createToolSearchTools", "setPluginToolMeta", "getPluginToolMeta", "toToolDefinitions", "pickSandboxToolPolicy", "buildDefaultToolPolicyPipelineSteps", "applyToolPolicyPipeline"];
  // A plan with code mode and Tool Search off: the surface leaves the tools direct.
  const body = `function createAgentHarnessToolSurfaceRuntimeCore() { return { codeModeControlsEnabled: false, toolSearchControlsEnabled: false, plan: {}, compactTools: (tools) => ({ tools }), cleanup() {} }; }
function addClientToolsToToolSearchCatalog(p) { return { tools: p.tools }; }
function setPluginToolMeta() {}
function getPluginToolMeta() {}
${names.slice(2).filter((n) => !n.includes("PluginToolMeta")).map((n) => `function ${n}() { throw new Error("${n} is not part of this fixture"); }`).join("\n")}
export { ${names.map((n, i) => `${n} as ${String.fromCharCode(97 + i)}`).join(", ")} };\n`;
  fs.writeFileSync(path.join(dir, "tool-surface-bridge-Gfake01.mjs"), body);
  return dir;
}

test("adapter-v2 declares agent-turn and hands agent.turn to the gateway mode, which refuses what a gateway cannot take before starting one", async () => {
  const child = spawn(process.execPath, [path.join(here, "..", "adapter-v2.mjs"), "--dist", gen2OffDist(), "--version", "fixture"], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const lines = readline.createInterface({ input: child.stdout });
  const waiting = new Map();
  lines.on("line", (l) => {
    const m = JSON.parse(l);
    waiting.get(m.id)?.(m);
  });
  let id = 0;
  const call = (method, params) =>
    new Promise((resolve) => {
      waiting.set(++id, resolve);
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  try {
    const init = await call("initialize", { protocolVersion: "1" });
    assert.ok(init.result?.features.includes("agent-turn"), `initialize must declare agent-turn: ${JSON.stringify(init)} ${stderr}`);
    const prep = await call("run.prepare", { run: "r1", agentId: "a", sessionId: "s", sessionKey: "agent:a:s", senderId: "x", channel: "c", codeMode: false, tools: [] });
    assert.equal(prep.result?.codeModeActive, false, `run.prepare: ${JSON.stringify(prep)} ${stderr}`);
    const turn = { run: "r1", provider: { baseUrl: "http://127.0.0.1:9/v1", model: "m" }, user: "u-1", message: "hi" };
    const steps = await call("agent.turn", { ...turn, maxSteps: 3 });
    assert.equal(steps.error?.code, -32602, `maxSteps: ${JSON.stringify(steps)}`);
    assert.match(steps.error.message, /maxSteps is not drivable through the gateway/);
    const faults = await call("agent.turn", { ...turn, faults: { addProviderTool: "echo" } });
    assert.equal(faults.error?.code, -32602, `faults: ${JSON.stringify(faults)}`);
    assert.match(faults.error.message, /fault-injection/);
    const bad = await call("agent.turn", { run: "r1", message: "hi" });
    assert.equal(bad.error?.code, -32602, `no provider: ${JSON.stringify(bad)}`);
    const unknown = await call("agent.turn", { ...turn, run: "nope" });
    assert.equal(unknown.error?.code, -32001, `unknown run: ${JSON.stringify(unknown)}`);
    assert.doesNotMatch(stderr, /openclaw gateway .* ready/, "no gateway is started for a refused turn");
  } finally {
    child.stdin.end();
    await new Promise((r) => child.on("exit", r));
  }
});

test("trajectoryCalls: exec/wait calls of the model, then the nested calls OpenClaw projected under them", async () => {
  const { trajectoryCalls } = await import("../lib/gateway.mjs");
  const msgs = [
    { role: "user", content: "go" },
    { role: "assistant", content: [{ type: "toolCall", id: "call1", name: "exec", arguments: { code: "x" } }] },
    { role: "toolResult", toolCallId: "call1", toolName: "exec", details: { status: "waiting" }, content: [] },
    { role: "assistant", content: [{ type: "toolCall", id: "tool_search_code:call1:echo:1", name: "echo", arguments: { m: 1 } }] },
    { role: "toolResult", toolCallId: "tool_search_code:call1:echo:1", toolName: "echo", isError: false, content: [] },
    { role: "assistant", content: [{ type: "toolCall", id: "call2", name: "wait", arguments: { runId: "r" } }] },
    { role: "toolResult", toolCallId: "call2", toolName: "wait", details: { status: "completed" }, content: [] },
    { role: "assistant", content: [{ type: "toolCall", id: "tool_search_code:call2:add:2", name: "add", arguments: { a: 1 } }] },
    { role: "toolResult", toolCallId: "tool_search_code:call2:add:2", toolName: "add", isError: true, content: [] },
  ];
  assert.deepEqual(trajectoryCalls(msgs), [
    { toolCallId: "call1", tool: "exec", input: { code: "x" }, status: "waiting" },
    { toolCallId: "tool_search_code:call1:echo:1", parentToolCallId: "call1", tool: "echo", input: { m: 1 }, status: "ok" },
    { toolCallId: "call2", tool: "wait", input: { runId: "r" }, status: "completed" },
    { toolCallId: "tool_search_code:call2:add:2", parentToolCallId: "call2", tool: "add", input: { a: 1 }, status: "error" },
  ]);
});

test("trajectoryCalls: 2026.9.6's nested activity (openclaw.nested-tool.v1) goes under its parent, by startOrder", async () => {
  const { trajectoryCalls } = await import("../lib/gateway.mjs");
  const act = (toolCallId, parentToolCallId, toolName, startOrder, isError = false) => ({ role: "custom", customType: "openclaw.nested-tool.v1", details: { runId: "r", scopeId: "s", toolCallId, parentToolCallId, toolName, input: { n: startOrder }, startOrder, isError } });
  const msgs = [
    { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "exec", arguments: { code: "x" } }] },
    { role: "toolResult", toolCallId: "c1", details: { status: "waiting" }, content: [] },
    { role: "assistant", content: [{ type: "toolCall", id: "c2", name: "wait", arguments: {} }] },
    { role: "toolResult", toolCallId: "c2", details: { status: "completed" }, content: [] },
    act("n3", "c2", "add", 3, true), act("n1", "c1", "echo", 1), act("n2", "c1", "slow", 2),
  ];
  assert.deepEqual(trajectoryCalls(msgs).map((c) => [c.toolCallId, c.parentToolCallId ?? "", c.status]), [["c1", "", "waiting"], ["n1", "c1", "ok"], ["n2", "c1", "ok"], ["c2", "", "completed"], ["n3", "c2", "error"]]);
});
