// Offline tests of the OpenClaw adapter against the fixture dist/ in
// testdata (run by `go test ./targets/openclaw`, or `node --test test/`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import readline from "node:readline";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseExports, discoverChunks } from "../lib/chunks.mjs";
import { codeModeConfig, modelTools } from "../lib/translate.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, "..", "testdata", "dist");
const gen2 = path.join(here, "..", "testdata", "dist-gen2");

test("parseExports reads the source names of a chunk's export clause", () => {
  const src = 'function a(){}\n//#endregion\nexport { runCodeModeScriptHeadless as a, resolveCodeModeConfig as i, plain, x as "quoted" };\n';
  assert.deepEqual(parseExports(src), [
    { local: "runCodeModeScriptHeadless", exported: "a" },
    { local: "resolveCodeModeConfig", exported: "i" },
    { local: "plain", exported: "plain" },
    { local: "x", exported: "quoted" },
  ]);
  assert.deepEqual(parseExports("const x = 1;"), []);
});

test("discoverChunks finds every function by its export clause and prefers the defining chunk", () => {
  const found = discoverChunks(dist);
  assert.deepEqual(found, {
    createCodeModeTools: { file: "code-mode-Qfake03.js", exported: "r" },
    applyCodeModeCatalog: { file: "code-mode-Qfake03.js", exported: "n" },
    resolveCodeModeConfig: { file: "code-mode-Qfake03.js", exported: "i" },
    addClientToolsToCodeModeCatalog: { file: "code-mode-Qfake03.js", exported: "t" },
    createToolSearchCatalogRef: { file: "tool-search-Zfake02.js", exported: "m" },
    setPluginToolMeta: { file: "tools-C8fake01.js", exported: "s" },
    getPluginToolMeta: { file: "tools-C8fake01.js", exported: "i" },
    toToolDefinitions: { file: "tool-split-Bfake04.js", exported: "o" },
    pickSandboxToolPolicy: { file: "tool-policy-pipeline-Pfake07.js", exported: "p" },
    buildDefaultToolPolicyPipelineSteps: { file: "tool-policy-pipeline-Pfake07.js", exported: "n" },
    applyToolPolicyPipeline: { file: "tool-policy-pipeline-Pfake07.js", exported: "t" },
  });
});

test("discoverChunks names what is missing and recognises a generation-2 dist", () => {
  assert.throws(() => discoverChunks(gen2), (err) => {
    assert.match(err.message, /no chunk exports createCodeModeTools, applyCodeModeCatalog/);
    assert.match(err.message, /exports runCodeModeScriptHeadless but not the generation-1 code-mode tools/);
    return true;
  });
  assert.throws(() => discoverChunks(path.join(here, "no-such-dir")), /cannot read OpenClaw dist directory/);
});

test("codeModeConfig puts the raw value under tools.codeMode unchanged, and omits it when absent", () => {
  assert.deepEqual(codeModeConfig({ run: "r" }), { tools: {} });
  for (const raw of [true, false, null, "yes", 3, { enabled: true, runtime: "node", timeoutMs: 2.5 }]) {
    assert.deepEqual(codeModeConfig({ run: "r", codeMode: raw }), { tools: { codeMode: raw } });
  }
});

test("modelTools gives {name, description, inputSchema} and drops TypeBox symbol keys", () => {
  const params = { type: "object", properties: {}, [Symbol.for("TypeBox.Kind")]: "Object" };
  assert.deepEqual(modelTools([{ name: "exec", description: "d", parameters: params }]), [
    { name: "exec", description: "d", inputSchema: { type: "object", properties: {} } },
  ]);
});

// A driver-protocol session with the adapter over the fixture dist.
function session() {
  const child = spawn(process.execPath, [path.join(here, "..", "adapter.mjs"), "--dist", dist, "--version", "fixture"], { stdio: ["pipe", "pipe", "pipe"] });
  const waiting = new Map();
  const lines = [];
  const invokes = [];
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  let answer = (msg) => ({ jsonrpc: "2.0", id: msg.id, result: { result: { echoed: msg.params.input } } });
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    lines.push(line);
    const msg = JSON.parse(line);
    if (msg.method === "tool.invoke") {
      invokes.push(msg);
      child.stdin.write(JSON.stringify(answer(msg)) + "\n");
    } else if (waiting.has(msg.id)) {
      waiting.get(msg.id)(msg);
      waiting.delete(msg.id);
    }
  });
  let id = 100;
  return {
    lines,
    invokes,
    stderr: () => stderr,
    setAnswer: (f) => (answer = f),
    call(method, params) {
      const n = id++;
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: n, method, params }) + "\n");
      return new Promise((resolve) => waiting.set(n, resolve));
    },
    close: () => new Promise((resolve) => {
      child.on("exit", resolve);
      child.stdin.end();
    }),
  };
}

// eventually retries check until it stops throwing, for at most 5 s.
async function eventually(check, ms = 5000) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      return check();
    } catch (e) {
      if (Date.now() > end) throw e;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

const ident = { agentId: "a1", sessionId: "s1", sessionKey: "agent:a1:s1", senderId: "u1", channel: "conformance" };

test("adapter: initialize, prepare, exec with a nested call, errors and not-drivable surfaces", async () => {
  const s = session();
  try {
    const init = await s.call("initialize", { protocolVersion: "1", harness: { name: "t", version: "0" } });
    assert.deepEqual(init.result.features, ["core", "yield", "typescript", "shell-exec", "telemetry", "snapshot-executor", "isolation", "pending-call-limit", "agent-turn", "streaming", "tools-api", "trajectory"]);
    assert.deepEqual(init.result.notDrivable.map((n) => n.surface ?? n.requirement ?? `feature ${n.feature}`), ["CM-ACT-03", "disableTools", "raw", "runtime.stats", "CM-NEST-07", "feature fault-injection", "feature sandbox", "feature hooks", "feature approvals"]);
    for (const n of init.result.notDrivable) assert.ok(n.reason.length > 20, `a reason for ${JSON.stringify(n)}`);
    // The fixture dist has no hook runner: hooks and approvals are not
    // drivable, naming the missing OpenClaw functions, never just undeclared.
    assert.match(init.result.notDrivable.find((n) => n.feature === "hooks").reason, /exports no initializeGlobalHookRunner/);
    assert.equal((await s.call("initialize", { protocolVersion: "2" })).error.code, -32602);

    const tools = [
      { name: "weather", description: "Weather", source: "plugin", owner: "forecast" },
      { name: "echo", description: "Echo", source: "openclaw", owner: "core" },
      { name: "open_app", description: "Client", source: "client", owner: "app" },
    ];
    const prep = await s.call("run.prepare", { run: "r1", ...ident, codeMode: { enabled: true, timeoutMs: 5000 }, tools });
    assert.equal(prep.result.codeModeActive, true);
    assert.deepEqual(prep.result.tools.map((t) => t.name), ["exec", "wait"]);
    assert.equal(prep.result.effectiveConfig.timeoutMs, 5000);

    // The result is OpenClaw's .details, unchanged (no normalisation).
    const done = await s.call("tool.exec", { run: "r1", toolCallId: "call-1", input: { code: 'value:{"a":1}' } });
    assert.deepEqual(done.result, { status: "completed", value: { a: 1 }, output: [], telemetry: { catalogSize: 3, visibleTools: ["exec", "wait"] } });

    // A plugin tool carries its owner through setPluginToolMeta; tool.invoke
    // reports OpenClaw's catalog id, its nested call id and the parent call.
    const called = await s.call("tool.exec", { run: "r1", toolCallId: "call-2", input: { code: 'call:openclaw:forecast:weather:{"city":"Oslo"}' } });
    assert.deepEqual(called.result.value.result, { content: [{ type: "text", text: '{"echoed":{"city":"Oslo"}}' }], details: { echoed: { city: "Oslo" } } });
    assert.equal(s.invokes.length, 1);
    assert.deepEqual(s.invokes[0].params, {
      run: "r1", toolCallId: "tool_search_code:call-2:weather:1", parentToolCallId: "call-2", catalogId: "openclaw:forecast:weather",
      tool: "weather", source: "plugin", owner: "forecast", input: { city: "Oslo" }, context: ident,
    });

    // A client tool goes through addClientToolsToCodeModeCatalog.
    const client = await s.call("tool.exec", { run: "r1", toolCallId: "call-3", input: { code: "call:client:client:open_app:{}" } });
    assert.equal(s.invokes[1].params.catalogId, "client:client:open_app");
    assert.equal(client.result.status, "completed");

    // A tool error answer becomes a thrown tool error inside OpenClaw.
    s.setAnswer((m) => ({ jsonrpc: "2.0", id: m.id, error: { code: -32010, message: "weather service down", data: { reason: "x" } } }));
    const failed = await s.call("tool.exec", { run: "r1", toolCallId: "call-4", input: { code: "call:openclaw:core:echo:{}" } });
    assert.deepEqual(failed.result.status, "failed");
    assert.equal(failed.result.error, "Error: weather service down");

    // A thrown exec error is what OpenClaw's tool pipeline makes of it.
    const bad = await s.call("tool.exec", { run: "r1", toolCallId: "call-5", input: { code: "" } });
    assert.deepEqual(bad.result, { status: "error", tool: "exec", error: "code or command must be a non-empty string." });

    // OpenClaw's logs never reach the protocol stream.
    const logged = await s.call("tool.exec", { run: "r1", toolCallId: "call-6", input: { code: "log" } });
    assert.equal(logged.result.value, "logged");
    // stderr is another pipe: the line may arrive after the response.
    await eventually(() => assert.match(s.stderr(), /fixture log line/));

    // policy goes through OpenClaw's tool-policy pipeline as the agent's
    // tools.allow/deny; client tools are not part of it.
    const pol = await s.call("run.prepare", { run: "r2", ...ident, codeMode: false, tools, policy: { allow: ["forecast", "echo"], deny: ["echo"] } });
    assert.deepEqual(pol.result.tools.map((t) => t.name), ["weather", "open_app"]);
    // Not drivable: answered with an error naming the reason, never a made-up success.
    const raw = await s.call("run.prepare", { run: "r4", ...ident, codeMode: true, tools, raw: true });
    assert.equal(raw.error.code, -32602);
    assert.match(raw.error.message, /raw is not drivable/);
    const stats = await s.call("runtime.stats");
    assert.equal(stats.error.code, -32601);
    assert.match(stats.error.message, /activeRuns/);
    // run.abort aborts OpenClaw's ctx.abortSignal; the run stays prepared.
    assert.equal((await s.call("run.abort", { run: "r1" })).result, true);

    // Protocol faults.
    assert.equal((await s.call("tool.exec", { run: "nope", toolCallId: "c", input: {} })).error.code, -32001);
    assert.equal((await s.call("run.prepare", { run: "r1", ...ident, tools: [] })).error.code, -32602);
    const off = await s.call("run.prepare", { run: "r3", ...ident, codeMode: false, tools });
    assert.equal(off.result.codeModeActive, false);
    assert.deepEqual(off.result.tools.map((t) => t.name), ["weather", "echo", "open_app"]);
    assert.equal(off.result.effectiveConfig, undefined);
    assert.equal((await s.call("tool.exec", { run: "r3", toolCallId: "c", input: { code: "value:1" } })).error.code, -32600);
    assert.equal((await s.call("run.end", { run: "r1" })).result, true);
    assert.equal((await s.call("run.end", { run: "r1" })).error.code, -32001);
    assert.equal((await s.call("nope.method", {})).error.code, -32601);
  } finally {
    await s.close();
  }
  for (const line of s.lines) assert.doesNotThrow(() => JSON.parse(line), `stdout carries only JSON-RPC lines: ${line}`);
});
