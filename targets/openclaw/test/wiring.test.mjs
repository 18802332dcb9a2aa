// The pure translations of the 2026-12-01 wiring: mcpServers → OpenClaw's
// mcp.servers, telemetry.sources → catalogSources, the executor choice.
import test from "node:test";
import assert from "node:assert/strict";
import { mcpServersConfig } from "../lib/mcp.mjs";
import { withCatalogSources, codeModeConfig } from "../lib/translate.mjs";

test("mcpServers become OpenClaw's mcp.servers, and bad entries are named (§5.6)", () => {
  assert.deepEqual(mcpServersConfig([{ name: "docs", transport: "stdio", command: "/bin/x", args: ["a"], env: { K: "v" } }, { name: "acme.tools-2", transport: "http", url: "http://127.0.0.1:1/mcp" }]), {
    servers: { docs: { command: "/bin/x", args: ["a"], env: { K: "v" } }, "acme.tools-2": { url: "http://127.0.0.1:1/mcp", transport: "streamable-http" } },
  });
  assert.deepEqual(mcpServersConfig(undefined), { servers: {} });
  for (const bad of [[{ name: "" , transport: "stdio", command: "x" }], [{ name: "a", transport: "stdio", command: "x" }, { name: "a", transport: "stdio", command: "x" }], [{ name: "a", transport: "ws" }], [{ name: "a", transport: "stdio" }], [{ name: "a", transport: "http" }], "x"]) {
    assert.ok(mcpServersConfig(bad).error, `must refuse ${JSON.stringify(bad)}`);
  }
});

test("telemetry.sources becomes catalogSources without the empty sources; the rest is unchanged", () => {
  const r = { status: "completed", value: 1, telemetry: { catalogSize: 3, sources: { openclaw: 2, mcp: 1, client: 0 } } };
  assert.deepEqual(withCatalogSources(r), { ...r, telemetry: { ...r.telemetry, catalogSources: { openclaw: 2, mcp: 1 } } });
  assert.equal(withCatalogSources(null), null);
  const own = { telemetry: { sources: { a: 1 }, catalogSources: { b: 2 } } };
  assert.equal(withCatalogSources(own), own, "a catalogSources OpenClaw gives itself is kept");
});

test("the executor goes into every enabling codeMode that names none", () => {
  assert.deepEqual(codeModeConfig({ codeMode: true }, "quickjs"), { tools: { codeMode: { enabled: true, executor: "quickjs" } } });
  assert.deepEqual(codeModeConfig({ codeMode: { enabled: true, timeoutMs: 500 } }, "quickjs"), { tools: { codeMode: { enabled: true, timeoutMs: 500, executor: "quickjs" } } });
  assert.deepEqual(codeModeConfig({ codeMode: { enabled: true, executor: "node" } }, "quickjs"), { tools: { codeMode: { enabled: true, executor: "node" } } });
  assert.deepEqual(codeModeConfig({ codeMode: false }, "quickjs"), { tools: { codeMode: false } });
  assert.deepEqual(codeModeConfig({}, "quickjs"), { tools: {} });
  assert.deepEqual(codeModeConfig({ codeMode: true }), { tools: { codeMode: true } });
});

test("run.prepare's hooks and approvals: which runs get OpenClaw's hook context (§4.1)", async () => {
  const { gatesOf, hookContext } = await import("../lib/hooks.mjs");
  assert.equal(gatesOf({}), null, "a run that opts into neither gets no hook context");
  assert.equal(gatesOf({ hooks: { beforeToolCall: false }, approvals: { tools: [] } }), null);
  assert.deepEqual(gatesOf({ hooks: { beforeToolCall: true } }), { hook: true, approvals: new Set() });
  assert.deepEqual(gatesOf({ approvals: { tools: ["echo"] } }), { hook: false, approvals: new Set(["echo"]) });
  assert.equal(typeof gatesOf({ approvals: { tools: "echo" } }), "string", "approvals.tools must be an array");
  assert.deepEqual(hookContext({ agentId: "a", sessionKey: "k", sessionId: "s", run: "r" }, { tools: {} }), { agentId: "a", config: { tools: {} }, sessionKey: "k", sessionId: "s", runId: "r" });
});
