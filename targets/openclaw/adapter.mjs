// Driver-protocol adapter for OpenClaw generation 1 (2026.5–2026.7.x) code mode.
//
// It speaks the codemode-conformance driver protocol (spec/protocol.md:
// JSON-RPC 2.0, one JSON object per line on stdin/stdout, logs on stderr) and
// drives OpenClaw's own code-mode functions, loaded from the installed
// package's dist/ chunks. It only translates: config resolution, limits,
// catalog ids, result shapes and error handling are OpenClaw's. Behaviour the
// module surface cannot drive is declared in initialize as notDrivable, so the
// harness reports it as such and never as a pass.
//
//   node adapter.mjs --dist <openclaw>/dist [--version 2026.7.35] [--check]
//
// --check answers whether the dist is drivable and exits (lib/chunks.mjs
// checkDrivable; openclaw-install --check).
//
// OPENCLAW_DIST may replace --dist.

import { pathToFileURL } from "node:url";
import path from "node:path";
import { discoverChunks, checkDrivable, CHUNK_EXTS, loadSurface, REQUIRED, pick, once, has } from "./lib/chunks.mjs";
import { codeModeConfig, modelTools, isCodeModeSurface, agentTools, withCatalogSources } from "./lib/translate.mjs";
import { Peer } from "./lib/peer.mjs";
import { harnessTool } from "./lib/harnesstool.mjs";
import { SANDBOX_NOT_DRIVABLE, refuseSandbox, Updates } from "./lib/nestedcalls.mjs";
import { GatewayPool, trajectoryCalls } from "./lib/gateway.mjs";
import { MCP_REQUIRED, mcpServersConfig, openMcp } from "./lib/mcp.mjs";
import { applyNamespaces } from "./lib/namespaces.mjs";
import { loadToolsSchema, codeModeConfigError } from "./lib/configschema.mjs";
import { HOOKS_REQUIRED, gatesOf, hookContext, hooksNotDrivable, installGates, recordCall } from "./lib/hooks.mjs";

const args = process.argv.slice(2);
const arg = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const distDir = arg("--dist") ?? process.env.OPENCLAW_DIST;
const version = arg("--version") ?? "unknown";
// The release the not-drivable reasons speak of: each was read in 2026.7.35's
// chunks and holds, by the same functions, for 2026.6.35 and 2026.7.1.
const release = version === "unknown" ? "this release" : version;

function fatal(msg) {
  process.stderr.write(`openclaw adapter: ${msg}\n`);
  process.exit(1);
}

// stdout carries protocol lines only: OpenClaw logs with console.* and its
// worker threads' stdout is piped to ours, so everything else goes to stderr.
const protocolOut = { write: process.stdout.write.bind(process.stdout) };
process.stdout.write = process.stderr.write.bind(process.stderr);
for (const k of ["log", "info", "debug"]) console[k] = (...a) => console.error(...a);

if (!distDir) fatal("no OpenClaw dist/ directory: pass --dist <dir> or set OPENCLAW_DIST");

let surface, found;
const importer = (file) => import(pathToFileURL(path.join(distDir, file)).href);
// --check: say whether this dist is drivable and exit (lib/chunks.mjs
// checkDrivable; one JSON line on stdout, exit 0 drivable, 3 not).
if (args.includes("--check")) {
  const r = await checkDrivable(distDir, REQUIRED, importer, [...MCP_REQUIRED, ...HOOKS_REQUIRED, "ToolsSchema", "describeCodeModeNamespacesForPrompt"]);
  protocolOut.write(JSON.stringify({ version, generation: 1, adapter: path.basename(new URL(import.meta.url).pathname), ...r }) + "\n");
  process.exit(r.drivable ? 0 : 3);
}
try {
  found = discoverChunks(distDir, REQUIRED, CHUNK_EXTS, [...MCP_REQUIRED, ...HOOKS_REQUIRED, "ToolsSchema", "describeCodeModeNamespacesForPrompt"]);
} catch (err) {
  fatal(err.message);
}

// OpenClaw's code-mode chunks load from process start; initialize waits for
// them at most INIT_WAIT_MS and run.prepare awaits the rest (a loaded machine
// takes tens of seconds to compile them; the harness gives initialize one
// minute and each call half a minute, so the load may use both).
const surfaceLoaded = once(async () => (surface = await loadSurface(pick(found, REQUIRED), importer)));
const INIT_WAIT_MS = 45000;
surfaceLoaded().catch(() => {}); // its error is run.prepare's answer

// Features whose behaviour this adapter really drives through the module
// surface (spec/protocol.md §9). yield: OpenClaw's yield_control suspends with
// reason "yield". typescript: OpenClaw transpiles with the typescript package.
// shell-exec: a core tool named exec is catalogued as openclaw:core:exec
// (only OpenClaw's own code-mode exec/wait are control tools). telemetry:
// every result carries OpenClaw's telemetry object, passed through unchanged.
// snapshot-executor, isolation: generation 1 runs every cell in QuickJS-WASI
// and suspends it into a snapshot (000).
// agent-turn: each agent.turn runs through a real `openclaw gateway`
// (lib/gateway.mjs).
// streaming: OpenClaw hands a nested tool the exec/wait's onUpdate
// (lib/nestedcalls.mjs).
// mcp, mcp-resources: run.prepare's mcpServers go through OpenClaw's
// session MCP runtime (lib/mcp.mjs); the MCP global, API files, resources
// and prompts are code mode's own projection of those tools.
// namespaces: registrations go into OpenClaw's process-wide namespace
// registry (lib/namespaces.mjs); visibility, scopes and calls are OpenClaw's.
// hooks, approvals: a before_tool_call plugin hook in OpenClaw's global hook
// runner and its embedded plugin approval broker (lib/hooks.mjs).
// trajectory: for runs driven by agent.turn, the transcript projection of
// the nested calls that OpenClaw's embedded attempt hands its agent_end
// hooks (lib/gateway.mjs trajectoryCalls); module-level runs have none
// (CM-NEST-07 is not drivable).
const FEATURES = ["core", "yield", "typescript", "shell-exec", "telemetry", "snapshot-executor", "isolation", "pending-call-limit", "agent-turn", "streaming", "tools-api", "mcp", "mcp-resources", "namespaces", "hooks", "approvals", "trajectory"];

// What the module surface cannot drive (spec/protocol.md §3 initialize,
// notDrivable). The harness skips a spec that needs one of these with the
// reason, and the report shows it as not drivable.
const NOT_DRIVABLE = [
  { requirement: "CM-ACT-03", reason: "its cases are one spec: a raw call and disableTools are decided in OpenClaw's run setup before any tool exists (not drivable), so the spec cannot be judged as a whole; the empty-allowlist case is driven through policy (see TRIAGE.md)" },
  { surface: "disableTools", reason: "OpenClaw decides disableTools before it builds any tool; the code-mode module is never called" },
  { surface: "raw", reason: "a raw model call builds no tools in OpenClaw; the code-mode module is never called" },
  { surface: "runtime.stats", reason: "OpenClaw keeps suspended runs in a module-private map (activeRuns) and runs each cell in a worker thread; neither is exported, so live VMs, snapshots and suspended runs cannot be counted" },
  // Features OpenClaw 2026.7.35 has that this adapter does not drive, so
  // does not declare (§3 notDrivable[].feature): their specs are skipped as
  // not drivable with the reason, never as "not declared". The profile-v2
  // features (bridge-queue, execution-mode, results, session-store,
  // run-lifecycle-messages, …) are not 7.35's at all and stay undeclared.
  { requirement: "CM-NEST-07", reason: `its specs trace module-level runs (tool.exec/tool.wait without an agent turn), and ${release} projects nested calls into a transcript only inside its embedded agent attempt (runEmbeddedAttempt's toolSearchCatalogExecutor pushes to the closure-local toolSearchTargetTranscriptProjections; no exported recorder or projection), which a module-level run never starts; agent turns are traced (feature trajectory, CM-E2E-08/09)` },
  { feature: "fault-injection", reason: `${release} cannot make its QuickJS-WASI runtime fail to load for one run (CM-CFG-07 needs it): runCodeModeWorker takes a workerUrl, but it is not exported and createCodeModeTools/runCodeModeScriptHeadless always pass none (codeModeWorkerUrl resolves the bundled worker; read in 7.35)` },
  SANDBOX_NOT_DRIVABLE,
];

// Loaded on first use (lib/chunks.mjs once): the MCP runtime for a run with
// mcpServers, the config schema for the first run.prepare.
const mcpSurface = once(async () => ({ ...surface, ...(await loadSurface(pick(found, MCP_REQUIRED), importer)) }));
// A build without them (the adapter's test fixtures) declares no mcp and
// validates no config, and says so in its log.
const hasMcp = has(found, MCP_REQUIRED);
const hasHooks = has(found, HOOKS_REQUIRED);
// The harness hook and the approval broker, installed by the first run that
// opts into hooks or approvals (lib/hooks.mjs).
const gatesInstalled = once(async () => installGates(await loadSurface(pick(found, HOOKS_REQUIRED), importer), peer, runs, (m) => process.stderr.write(`openclaw: ${m}\n`)));
const toolsSchema = once(async () => {
  if (found.ToolsSchema) return loadToolsSchema(distDir, found.ToolsSchema);
  process.stderr.write("openclaw adapter: this dist exports no ToolsSchema; tools.codeMode goes unvalidated to the resolver\n");
  return null;
});

const peer = new Peer(process.stdin, protocolOut, (m) => process.stderr.write(m + "\n"));
const updates = new Updates(peer); // partial updates (feature streaming, lib/nestedcalls.mjs)
const runs = new Map();
const gateways = new GatewayPool({
  node: process.execPath,
  openclaw: path.join(distDir, "..", "openclaw.mjs"),
  pluginTemplate: new URL("./gateway/plugin.mjs", import.meta.url).pathname,
  invoke: (params, signal) => peer.request("tool.invoke", params, signal, () => peer.notify("tool.cancel", { run: params.run, toolCallId: params.toolCallId })),
  log: (m) => process.stderr.write(`openclaw: ${m}\n`),
});
process.on("exit", () => gateways.killNow());

class ProtocolError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

function str(v) {
  return typeof v === "string" && v !== "";
}

// getRun finds the run params name: -32602 when params or run have the wrong
// shape, -32001 when no such run is prepared (§3 Protocol errors).
function getRun(params, method) {
  if (params === null || typeof params !== "object" || Array.isArray(params) || typeof params.run !== "string") {
    throw new ProtocolError(-32602, `${method}: params must be an object with run, a string`);
  }
  const r = runs.get(params.run);
  if (!r) throw new ProtocolError(-32001, `unknown run ${JSON.stringify(params?.run)}`);
  return r;
}

async function prepare(p) {
  try {
    await surfaceLoaded();
  } catch (err) {
    throw new ProtocolError(-32603, `run.prepare: cannot load OpenClaw's code-mode chunks: ${err.message}`);
  }
  if (!str(p?.run)) throw new ProtocolError(-32602, "run.prepare: run must be a non-empty string");
  if (runs.has(p.run)) throw new ProtocolError(-32602, `run.prepare: run ${JSON.stringify(p.run)} is already prepared`);
  for (const k of ["agentId", "sessionId", "sessionKey", "senderId", "channel"]) {
    if (!str(p[k])) throw new ProtocolError(-32602, `run.prepare: ${k} must be a non-empty string`);
  }
  if (!Array.isArray(p.tools)) throw new ProtocolError(-32602, "run.prepare: tools must be an array");
  refuseSandbox(p, ProtocolError);
  for (const [what, present] of [["disableTools", p.disableTools === true], ["raw", p.raw === true]]) {
    if (present) {
      const nd = NOT_DRIVABLE.find((n) => n.surface === what);
      throw new ProtocolError(-32602, `run.prepare: ${what} is not drivable through OpenClaw's code-mode module: ${nd.reason}`);
    }
  }
  for (const t of p.tools) {
    if (!str(t?.name) || !str(t?.owner) || !["openclaw", "plugin", "mcp", "client"].includes(t?.source)) {
      throw new ProtocolError(-32602, `run.prepare: tool ${JSON.stringify(t?.name)} needs name, owner and a known source`);
    }
  }
  const mcp = mcpServersConfig(p.mcpServers);
  if (mcp.error) throw new ProtocolError(-32602, `run.prepare: ${mcp.error}`);
  if (!hasMcp && Object.keys(mcp.servers).length > 0) throw new ProtocolError(-32602, "run.prepare: this OpenClaw dist exports no session MCP runtime (feature mcp not declared)");
  const gates = gatesOf(p);
  if (typeof gates === "string") throw new ProtocolError(-32602, `run.prepare: ${gates}`);
  if (gates && !hasHooks) throw new ProtocolError(-32602, "run.prepare: this OpenClaw dist exports no global hook runner (features hooks and approvals not declared)");
  if (gates) await gatesInstalled();
  const nsError = applyNamespaces(p.namespaces);
  if (nsError) throw new ProtocolError(-32602, `run.prepare: namespaces: ${nsError}`);
  const config = codeModeConfig(p);
  // OpenClaw validates tools.codeMode when it loads the config: a refused
  // config starts no run (§5.1 invalid_config; the run is not registered).
  const configError = codeModeConfigError(await toolsSchema(), config.tools);
  if (configError) return { run: p.run, codeModeActive: false, tools: [], failure: { code: "invalid_config", error: `OpenClaw's config schema refuses the config: ${configError}` } };
  const run = {
    id: p.run,
    context: { agentId: p.agentId, sessionId: p.sessionId, sessionKey: p.sessionKey, senderId: p.senderId, channel: p.channel },
    prepare: p, // for agent.turn (gateway mode)
    catalogIds: new Map(),
    controller: new AbortController(),
    gates, // null, or the run's hooks and approvals (lib/hooks.mjs)
    calls: new Map(), // in-flight nested calls as OpenClaw's catalog executor named them
  };
  let own = p.tools.filter((t) => t.source !== "client").map((t) => harnessTool(surface, peer, run, t, { updates }));
  // The run's MCP servers: OpenClaw's session MCP runtime connects to them
  // and makes their tools (lib/mcp.mjs); they join the run's own tools
  // before policy, as in OpenClaw's run setup. An unreachable server leaves
  // its tools out (OpenClaw's catalog diagnostics), it does not fail the run.
  run.mcp = Object.keys(mcp.servers).length === 0 ? { tools: [], close: async () => {} } : await openMcp(await mcpSurface(), { run: p.run, sessionKey: p.sessionKey, servers: mcp.servers, reservedToolNames: p.tools.map((t) => t.name), log: (m) => process.stderr.write(`openclaw: ${m}\n`) });
  own = [...own, ...run.mcp.tools];
  try {
    return prepareTools(p, run, config, own);
  } catch (err) {
    await run.mcp.close();
    throw err;
  }
}

function prepareTools(p, run, config, own) {
  if (p.policy != null) {
    // policy is the agent's tools.allow/deny (agents.list[].tools), run
    // through OpenClaw's own tool-policy pipeline before code mode, as its
    // tool assembly does. Client tools come from the request and are not
    // part of that pipeline.
    const steps = surface.buildDefaultToolPolicyPipelineSteps({ agentPolicy: surface.pickSandboxToolPolicy(agentTools(p.policy)), agentId: p.agentId });
    own = surface.applyToolPolicyPipeline({ tools: own, toolMeta: (t) => surface.getPluginToolMeta(t), warn: (m) => process.stderr.write(`openclaw: ${m}\n`), steps });
  }
  const client = p.tools.filter((t) => t.source === "client").map((t) => harnessTool(surface, peer, run, t, { updates }));
  const eff = surface.resolveCodeModeConfig(config, p.agentId);
  // OpenClaw's run setup (codeModeControlsEnabledForRun in its tool
  // selection) creates the code-mode tools only when resolveCodeModeConfig
  // says enabled; otherwise the tools stay as they are.
  if (!eff.enabled) {
    run.active = false;
    runs.set(p.run, run);
    return { run: p.run, codeModeActive: false, tools: modelTools([...own, ...client]) };
  }
  const catalogRef = surface.createToolSearchCatalogRef();
  const ctx = {
    config,
    runtimeConfig: config,
    agentId: p.agentId,
    sessionId: p.sessionId,
    sessionKey: p.sessionKey,
    runId: p.run,
    catalogRef,
    abortSignal: run.controller.signal,
    // OpenClaw's default nested-call path, unchanged; it also hands the tool
    // the parent call id, which tool.invoke reports (CM-NEST-07).
    executeTool: async (c) => {
      const done = recordCall(run, c);
      try {
        return await c.tool.execute(c.toolCallId, c.input, c.signal, c.onUpdate, { parentToolCallId: c.parentToolCallId });
      } finally {
        done();
      }
    },
  };
  // A run with hooks or approvals gets OpenClaw's tool hook context, as its
  // run setup gives one to every run (lib/hooks.mjs).
  const hooked = run.gates ? { toolHookContext: hookContext(p, config) } : {};
  const cmTools = surface.createCodeModeTools(ctx);
  const scope = { config, agentId: p.agentId, sessionId: p.sessionId, sessionKey: p.sessionKey, runId: p.run, catalogRef };
  const applied = surface.applyCodeModeCatalog({ ...scope, ...hooked, tools: [...cmTools, ...own] });
  let visible = applied.tools;
  if (client.length > 0) visible = [...visible, ...surface.addClientToolsToCodeModeCatalog({ ...scope, tools: client }).tools];
  run.catalogEntries = new Map();
  for (const e of catalogRef.current?.entries ?? []) if (e.tool) {
    run.catalogIds.set(e.tool, e.id);
    run.catalogEntries.set(e.tool, e);
  }
  run.active = isCodeModeSurface(visible, cmTools);
  // OpenClaw's agent loop runs every tool through toToolDefinitions, which
  // turns a thrown error into the tool result {status: "error", tool, error}.
  const defs = surface.toToolDefinitions(cmTools, hooked.toolHookContext);
  run.exec = defs[0];
  run.wait = defs[1];
  runs.set(p.run, run);
  return { run: p.run, codeModeActive: run.active, tools: modelTools(visible), effectiveConfig: eff };
}

async function toolCall(which, p) {
  const run = getRun(p, which);
  if (!str(p.toolCallId)) throw new ProtocolError(-32602, `${which}: toolCallId must be a non-empty string`);
  if (!run.active) throw new ProtocolError(-32600, `${which}: code mode is not active in run ${JSON.stringify(run.id)}`);
  const def = which === "tool.exec" ? run.exec : run.wait;
  // OpenClaw passes this onUpdate on to the nested tools the cell calls
  // (feature streaming, lib/nestedcalls.mjs).
  const out = await def.execute(p.toolCallId, p.input, run.controller.signal, updates.forwarder(run.id, p.toolCallId));
  // .details is the code-mode result the model receives (jsonResult).
  return withCatalogSources(out?.details ?? null);
}

peer.handle = async (method, params) => {
  switch (method) {
    case "initialize":
      if (params?.protocolVersion !== "1") throw new ProtocolError(-32602, `unsupported protocolVersion ${JSON.stringify(params?.protocolVersion)}`);
      await Promise.race([surfaceLoaded().catch(() => {}), new Promise((r) => setTimeout(r, INIT_WAIT_MS).unref())]);
      setImmediate(() => surfaceLoaded().then(() => toolsSchema()).catch(() => {})); // warm it for the first run.prepare
      return {
        protocolVersion: "1",
        implementation: { name: "openclaw", version: `${version} (code-mode module via targets/openclaw/adapter.mjs; agent turns via the openclaw gateway)` },
        // mcp and namespaces only where this dist has the session MCP runtime
        // and the namespace registry (the chunk that creates it exports
        // describeCodeModeNamespacesForPrompt; the test fixtures have neither).
        features: FEATURES.filter((f) => (hasMcp || (f !== "mcp" && f !== "mcp-resources")) && (f !== "namespaces" || found.describeCodeModeNamespacesForPrompt !== undefined) && (hasHooks || (f !== "hooks" && f !== "approvals"))),
        notDrivable: [...NOT_DRIVABLE, ...hooksNotDrivable(found)],
      };
    case "run.prepare":
      return prepare(params ?? {});
    case "tool.exec":
    case "tool.wait":
      return toolCall(method, params ?? {});
    case "agent.turn": {
      const run = getRun(params);
      const p = params ?? {};
      if (!str(p.provider?.baseUrl) || !str(p.provider?.model) || !str(p.user) || typeof p.message !== "string") {
        throw new ProtocolError(-32602, "agent.turn: provider {baseUrl, model}, user and message are required");
      }
      return gateways.turn(run, p);
    }
    case "run.trajectory": {
      // Agent turns only: the projection of the run's last turn that
      // OpenClaw handed its agent_end hooks (lib/gateway.mjs).
      const run = getRun(params, method);
      const users = gateways.turnsOf(run.id);
      if (users.length === 0) throw new ProtocolError(-32601, `run.trajectory: run ${JSON.stringify(run.id)} had no agent turn; module-level runs have no OpenClaw transcript (see notDrivable CM-NEST-07)`);
      const messages = await gateways.agentEndMessages(users[users.length - 1], 10000);
      if (messages === null) throw new ProtocolError(-32603, "run.trajectory: OpenClaw ran no agent_end hook for the run's last turn within 10 s");
      return { run: run.id, calls: trajectoryCalls(messages) };
    }
    case "run.end": {
      const run = getRun(params, method);
      gateways.forgetRun(run.id);
      run.controller.abort();
      runs.delete(run.id);
      await run.mcp?.close();
      return true;
    }
    case "run.abort": {
      // OpenClaw's own abort: the signal its code-mode tools got as
      // ctx.abortSignal (and every exec/wait call's signal). What a later
      // exec or wait does is OpenClaw's. The run's MCP servers stop (§5.6).
      const run = getRun(params, method);
      run.controller.abort();
      await run.mcp?.close();
      return true;
    }
    case "runtime.stats": {
      const nd = NOT_DRIVABLE.find((n) => n.surface === method);
      throw new ProtocolError(-32601, `${method} is not drivable through OpenClaw's code-mode module: ${nd.reason}`);
    }
    case "run.update":
      // Feature results (profile v2): generation 1 has no results store.
      throw new ProtocolError(-32601, "run.update belongs to feature results (profile v2); OpenClaw generation 1 (this adapter) has no results store");
    case "shutdown":
      // No MCP child outlives the answer (§5.6 Stopping).
      await Promise.allSettled([...runs.values()].map((r) => r.mcp?.close()));
      setImmediate(() => gateways.close().finally(() => process.exit(0)));
      return true;
    default:
      throw new ProtocolError(-32601, `unknown method ${JSON.stringify(method)}`);
  }
};
peer.onNotify = (method, params) => {
  if (method === "tool.update") updates.deliver(params);
};
peer.onEnd = () => gateways.close().finally(() => process.exit(0));
peer.start();
