// Driver-protocol adapter for OpenClaw generation 2 (2026.8–2026.9.6) code
// mode, profile v2.
//
// Same protocol and rules as adapter.mjs (generation 1): it drives OpenClaw's
// own functions from the installed dist/ and only translates. Generation 2
// (.js chunks in 2026.8.x, .mjs in 2026.9.x) no longer exports
// applyCodeModeCatalog; its run setup is createAgentHarnessToolSurfaceRuntimeCore
// (the tool-surface plan: code-mode config, disableTools, raw runs, then the
// exec/wait tools and the hidden catalog), which this adapter calls as the
// agent harness does. 2026.8.2 exports it only through
// createAgentHarnessToolSurfaceRuntime, which delegates to it; lib/chunks.mjs
// finds it by that.
//
//   node adapter-v2.mjs --dist <openclaw>/dist [--version 2026.9.6] [--check]

import { pathToFileURL } from "node:url";
import path from "node:path";
import { discoverChunks, checkDrivable, CHUNK_EXTS, loadSurface, pick, once, has } from "./lib/chunks.mjs";
import { codeModeConfig, modelTools, agentTools, withCatalogSources, abortedToolResult } from "./lib/translate.mjs";
import { Peer } from "./lib/peer.mjs";
import { V2_REQUIRED, V2_FEATURES, V2_NOT_DRIVABLE, isUntrustedWrapper } from "./lib/v2.mjs";
import { harnessTool } from "./lib/harnesstool.mjs";
import { refuseSandbox, Updates } from "./lib/nestedcalls.mjs";
import { GatewayPool, trajectoryCalls } from "./lib/gateway.mjs";
import { MCP_V2_REQUIRED, mcpServersConfig, openMcpV2 } from "./lib/mcp.mjs";
import { loadToolsSchema, codeModeConfigError } from "./lib/configschema.mjs";
import { HOOKS_REQUIRED, gatesOf, hookContext, hooksNotDrivable, installGates, recordCall } from "./lib/hooks.mjs";

const args = process.argv.slice(2);
const arg = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const distDir = arg("--dist") ?? process.env.OPENCLAW_DIST;
const version = arg("--version") ?? "unknown";
// --executor quickjs (target openclaw:2026.9.6+quickjs): every run's
// tools.codeMode selects 9.6's bundled QuickJS executor (lib/translate.mjs).
const executor = arg("--executor");

function fatal(msg) {
  process.stderr.write(`openclaw adapter (generation 2): ${msg}\n`);
  process.exit(1);
}

// stdout carries protocol lines only (see adapter.mjs).
const protocolOut = { write: process.stdout.write.bind(process.stdout) };
process.stdout.write = process.stderr.write.bind(process.stderr);
for (const k of ["log", "info", "debug"]) console[k] = (...a) => console.error(...a);

if (!distDir) fatal("no OpenClaw dist/ directory: pass --dist <dir> or set OPENCLAW_DIST");

let surface, found;
const importer = (file) => import(pathToFileURL(path.join(distDir, file)).href);
// --check: say whether this dist is drivable and exit (lib/chunks.mjs
// checkDrivable; one JSON line on stdout, exit 0 drivable, 3 not).
if (args.includes("--check")) {
  const r = await checkDrivable(distDir, V2_REQUIRED, importer, [...MCP_V2_REQUIRED, ...HOOKS_REQUIRED, "ToolsSchema"]);
  protocolOut.write(JSON.stringify({ version, generation: 2, adapter: path.basename(new URL(import.meta.url).pathname), ...r }) + "\n");
  process.exit(r.drivable ? 0 : 3);
}
try {
  found = discoverChunks(distDir, V2_REQUIRED, CHUNK_EXTS, [...MCP_V2_REQUIRED, ...HOOKS_REQUIRED, "ToolsSchema"]);
} catch (err) {
  fatal(err.message);
}

// OpenClaw's code-mode chunks load from process start; initialize waits for
// them at most INIT_WAIT_MS and run.prepare awaits the rest (a loaded machine
// takes tens of seconds to compile them; the harness gives initialize one
// minute and each call half a minute, so the load may use both).
const surfaceLoaded = once(async () => (surface = await loadSurface(pick(found, V2_REQUIRED), importer)));
const INIT_WAIT_MS = 45000;
surfaceLoaded().catch(() => {}); // its error is run.prepare's answer

// Loaded on first use (lib/chunks.mjs once), as in adapter.mjs.
const mcpSurface = once(async () => ({ ...surface, ...(await loadSurface(pick(found, MCP_V2_REQUIRED), importer)) }));
// A build without them (the adapter's test fixtures) declares no mcp and
// validates no config, and says so in its log.
const hasMcp = has(found, MCP_V2_REQUIRED);
// hooks and approvals: OpenClaw's global hook runner and embedded approval
// broker, as in adapter.mjs (lib/hooks.mjs).
const hasHooks = has(found, HOOKS_REQUIRED);
const gatesInstalled = once(async () => installGates(await loadSurface(pick(found, HOOKS_REQUIRED), importer), peer, runs, (m) => process.stderr.write(`openclaw: ${m}\n`)));
const toolsSchema = once(async () => {
  if (found.ToolsSchema) return loadToolsSchema(distDir, found.ToolsSchema);
  process.stderr.write("openclaw adapter: this dist exports no ToolsSchema; tools.codeMode goes unvalidated to the resolver\n");
  return null;
});

const peer = new Peer(process.stdin, protocolOut, (m) => process.stderr.write(m + "\n"));
const updates = new Updates(peer); // partial updates (feature streaming, lib/nestedcalls.mjs)
const runs = new Map();
// agent.turn (feature agent-turn) runs through a real `openclaw gateway` of
// this version (lib/gateway.mjs), as in adapter.mjs.
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

const str = (v) => typeof v === "string" && v !== "";

function getRun(params) {
  const r = runs.get(params?.run);
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
  for (const t of p.tools) {
    if (!str(t?.name) || !str(t?.owner) || !["openclaw", "plugin", "mcp", "client"].includes(t?.source)) {
      throw new ProtocolError(-32602, `run.prepare: tool ${JSON.stringify(t?.name)} needs name, owner and a known source`);
    }
  }
  for (const [what, present] of [["disableTools", p.disableTools === true], ["raw", p.raw === true]]) {
    if (present) {
      const nd = V2_NOT_DRIVABLE.find((n) => n.surface === what);
      throw new ProtocolError(-32602, `run.prepare: ${what} is not drivable through OpenClaw's code-mode module: ${nd.reason}`);
    }
  }
  const gates = gatesOf(p);
  if (typeof gates === "string") throw new ProtocolError(-32602, `run.prepare: ${gates}`);
  if (gates && !hasHooks) throw new ProtocolError(-32602, "run.prepare: this OpenClaw dist exports no global hook runner (features hooks and approvals not declared)");
  if (gates) await gatesInstalled();
  for (const what of ["session"]) {
    if (p[what] != null && p[what] !== false) {
      throw new ProtocolError(-32602, `run.prepare: ${what} is not driven by the generation-2 adapter (feature not declared)`);
    }
  }
  const mcp = mcpServersConfig(p.mcpServers);
  if (mcp.error) throw new ProtocolError(-32602, `run.prepare: ${mcp.error}`);
  if (!hasMcp && Object.keys(mcp.servers).length > 0) throw new ProtocolError(-32602, "run.prepare: this OpenClaw dist exports no session MCP runtime (feature mcp not declared)");
  if (p.namespaces != null) {
    const nd = V2_NOT_DRIVABLE.find((n) => n.feature === "namespaces");
    throw new ProtocolError(-32602, `run.prepare: namespaces are not drivable: ${nd.reason}`);
  }
  const config = codeModeConfig(p, executor);
  // OpenClaw validates tools.codeMode when it loads the config (ToolsSchema,
  // lib/configschema.mjs): a refused config starts no run (§5.1).
  const configError = codeModeConfigError(await toolsSchema(), config.tools);
  if (configError) return { run: p.run, codeModeActive: false, tools: [], failure: { code: "invalid_config", error: `OpenClaw's config schema refuses the config: ${configError}` } };
  const run = {
    id: p.run,
    context: { agentId: p.agentId, sessionId: p.sessionId, sessionKey: p.sessionKey, senderId: p.senderId, channel: p.channel },
    prepare: p, // for agent.turn (gateway mode)
    catalogIds: new Map(),
    controller: new AbortController(),
    gates, // null, or the run's hooks and approvals (lib/hooks.mjs)
    calls: new Map(), // in-flight nested calls as OpenClaw's tool-search runtime named them
  };
  // The run's MCP servers through OpenClaw's one-run MCP runtime
  // (lib/mcp.mjs); their tools join the run's own before policy.
  run.mcp = Object.keys(mcp.servers).length === 0 ? { tools: [], close: async () => {} } : await openMcpV2(await mcpSurface(), { servers: mcp.servers, reservedToolNames: p.tools.map((t) => t.name), log: (m) => process.stderr.write(`openclaw: ${m}\n`) });
  try {
    return prepareSurface(p, run, config);
  } catch (err) {
    await run.mcp.close();
    throw err;
  }
}

function prepareSurface(p, run, config) {
  const { own, client } = ownAndClient(run, p, p.tools, run.mcp.tools);
  let core;
  try {
    core = surface.createAgentHarnessToolSurfaceRuntimeCore({
      config,
      agentId: p.agentId,
      sessionKey: p.sessionKey,
      sessionId: p.sessionId,
      runId: p.run,
      modelToolsEnabled: true,
      abortSignal: run.controller.signal,
      // OpenClaw's default nested-call path (ToolSearchRuntime), plus the
      // parent call id it already holds, which tool.invoke reports.
      executeTool: async (c) => {
        const done = recordCall(run, c);
        try {
          return c.acceptResultBeforeProjection(await c.tool.execute(c.toolCallId, c.input, c.signal, c.onUpdate, { parentToolCallId: c.parentToolCallId }));
        } finally {
          done();
        }
      },
    });
  } catch (err) {
    // OpenClaw refuses the config (e.g. an unknown executor) while planning
    // the run: the model sees no tools at all.
    throw new ProtocolError(-32602, `run.prepare: OpenClaw refused the run setup: ${err.message}`);
  }
  Object.assign(run, { config, core, cleanup: core.cleanup });
  if (!core.codeModeControlsEnabled) {
    // Code mode off: the model sees what OpenClaw's surface makes of the
    // run's tools, which in 2026.9.6 is Tool Search whenever
    // tools.toolSearch is unset (toolSearchControlsEnabled).
    run.active = false;
    runs.set(p.run, run);
    return { run: p.run, codeModeActive: false, tools: modelTools(toolSearchSurface(run, own, client)) };
  }
  const visible = surface_(run, own, client);
  run.active = visible.length === 2 && run.exec !== undefined && run.wait !== undefined;
  runs.set(p.run, run);
  return { run: p.run, codeModeActive: run.active, tools: modelTools(visible) };
}

// toolSearchSurface is the model-visible surface of a run without code mode,
// built as OpenClaw's embedded agent harness builds it: when the plan
// reports toolSearchControlsEnabled, createOpenClawCodingTools adds the Tool
// Search control tools (createToolSearchTools with the plan's
// toolSearchRuntimeConfig) to the run's tools; the surface's compactTools
// then hides the catalogued tools behind the controls its mode exposes, and
// the client tools go through addClientToolsToToolSearchCatalog. With Tool
// Search off every step leaves the tools as they are.
function toolSearchSurface(run, own, client) {
  const p = run.prepare;
  const { core } = run;
  const config = core.plan.toolSearchRuntimeConfig;
  const ctx = { agentId: p.agentId, sessionKey: p.sessionKey, sessionId: p.sessionId, runId: p.run, catalogRef: core.toolSearchCatalogRef };
  const controls = core.toolSearchControlsEnabled
    ? surface.createToolSearchTools({ ...ctx, config, runtimeConfig: config, abortSignal: run.controller.signal, executeTool: core.toolSearchCatalogExecutor })
    : [];
  const visible = core.compactTools([...controls, ...own]).tools;
  return [...visible, ...surface.addClientToolsToToolSearchCatalog({ ...ctx, config, tools: client }).tools];
}

// ownAndClient turns ToolSpecs into OpenClaw tools: the run's own (after
// the agent's tools.allow/deny, through OpenClaw's own policy pipeline,
// before the tool surface, as in generation 1) and the client tools.
function ownAndClient(run, p, specs, mcpTools = []) {
  const make = (t) => harnessTool(surface, peer, run, t, { executionMode: true, resultContentSource: true, updates });
  let own = [...specs.filter((t) => t.source !== "client").map(make), ...mcpTools];
  if (p.policy != null) {
    // The agent's tools.allow/deny through OpenClaw's own policy pipeline,
    // before the tool surface, as in generation 1.
    const steps = surface.buildDefaultToolPolicyPipelineSteps({ agentPolicy: surface.pickSandboxToolPolicy(agentTools(p.policy)), agentId: p.agentId });
    own = surface.applyToolPolicyPipeline({ tools: own, toolMeta: (t) => surface.getPluginToolMeta(t), warn: (m) => process.stderr.write(`openclaw: ${m}\n`), steps });
  }
  return { own, client: specs.filter((t) => t.source === "client").map(make) };
}

// surface_ compacts the run's tools into OpenClaw's tool surface (a new
// catalog registration when the tools differ from the current catalog),
// adds the client tools to its catalog, and binds exec and wait as the
// agent loop does. It returns the model-visible tools.
function surface_(run, own, client) {
  const p = run.prepare;
  const compacted = run.core.compactTools(own, hooked(run));
  let visible = compacted.tools;
  if (client.length > 0) {
    visible = [...visible, ...surface.addClientToolsToCodeModeCatalog({ config: run.config, agentId: p.agentId, sessionId: p.sessionId, sessionKey: p.sessionKey, runId: p.run, catalogRef: run.core.toolSearchCatalogRef, tools: client }).tools];
  }
  noteCatalogIds(run);
  run.promptToolPolicy = compacted.promptToolPolicy;
  // The agent loop runs every tool through toToolDefinitions, which turns a
  // thrown error into the tool result {status: "error", tool, error}.
  const defs = surface.toToolDefinitions([visible.find((t) => t.name === "exec"), visible.find((t) => t.name === "wait")].filter(Boolean), hooked(run).hookContext);
  run.exec = defs.find((d) => d.name === "exec");
  run.wait = defs.find((d) => d.name === "wait");
  return visible;
}

// hooked is compactTools' options for a run: a run with hooks or approvals
// gets OpenClaw's tool hook context (its hookContext option), as the agent
// harness gives one to every run; others none, as before (lib/hooks.mjs).
function hooked(run) {
  return run.gates ? { hookContext: hookContext(run.prepare, run.config) } : {};
}

function noteCatalogIds(run) {
  run.catalogEntries ??= new Map();
  for (const e of run.core.toolSearchCatalogRef?.current?.entries ?? []) if (e.tool) {
    run.catalogIds.set(e.tool, e.id);
    run.catalogEntries.set(e.tool, e);
  }
}

const UPDATE_OPS = ["replaceTools", "restrictTo", "attachClientTools"];

// run.update (spec/protocol.md §3, feature results): each operation goes
// through the OpenClaw function its agent harness uses, and OpenClaw decides
// what happens to the results store and to parked cells.
//   replaceTools: the tool surface compacts the new tools (compactTools),
//     which registers a new catalog (registerToolSearchCatalog, not appended);
//   restrictTo: the surface's prompt-build tool policy applies the names as
//     toolsAllow (restrictToolSearchCatalog, a permission change);
//   attachClientTools: addClientToolsToCodeModeCatalog appends them.
function update(p) {
  if (!str(p?.run)) throw new ProtocolError(-32602, "run.update: run must be a non-empty string");
  const ops = UPDATE_OPS.filter((k) => p[k] !== undefined && p[k] !== null);
  if (ops.length !== 1) throw new ProtocolError(-32602, `run.update takes exactly one of ${UPDATE_OPS.join(", ")} (got ${ops.length})`);
  const op = ops[0];
  if (!Array.isArray(p[op])) throw new ProtocolError(-32602, `run.update: ${op} must be an array`);
  const run = getRun(p);
  if (!run.active) throw new ProtocolError(-32600, `run.update: code mode is not active in run ${JSON.stringify(run.id)}`);
  if (op === "restrictTo") {
    if (!p.restrictTo.every(str)) throw new ProtocolError(-32602, "run.update: restrictTo must list tool names");
    run.promptToolPolicy.apply({ toolsAllow: p.restrictTo });
    return true;
  }
  for (const t of p[op]) {
    if (!str(t?.name) || !str(t?.owner) || !["openclaw", "plugin", "mcp", "client"].includes(t?.source)) {
      throw new ProtocolError(-32602, `run.update: tool ${JSON.stringify(t?.name)} needs name, owner and a known source`);
    }
    if (t.directOnly === true) throw new ProtocolError(-32602, `run.update: ${op}: a directOnly tool cannot join the catalog through run.update`);
    if (op === "attachClientTools" && t.source !== "client") throw new ProtocolError(-32602, `run.update: attachClientTools: tool ${JSON.stringify(t.name)} has source ${JSON.stringify(t.source)}, not client`);
  }
  const { own, client } = ownAndClient(run, run.prepare, p[op]);
  if (op === "attachClientTools") {
    const q = run.prepare;
    surface.addClientToolsToCodeModeCatalog({ config: run.config, agentId: q.agentId, sessionId: q.sessionId, sessionKey: q.sessionKey, runId: q.run, catalogRef: run.core.toolSearchCatalogRef, tools: client });
    noteCatalogIds(run);
    return true;
  }
  surface_(run, own, client);
  return true;
}

async function toolCall(which, p) {
  // Wrong member types are invalid params (-32602) before any run lookup.
  if (typeof p.run !== "string" || typeof p.toolCallId !== "string") throw new ProtocolError(-32602, `${which}: run and toolCallId must be strings`);
  const run = getRun(p);
  if (!run.active) throw new ProtocolError(-32600, `${which}: code mode is not active in run ${JSON.stringify(run.id)}`);
  if (!str(p.toolCallId)) throw new ProtocolError(-32602, `${which}: toolCallId must be a non-empty string`);
  const def = which === "tool.exec" ? run.exec : run.wait;
  // OpenClaw passes this onUpdate on to the nested tools the cell calls
  // (feature streaming, lib/nestedcalls.mjs).
  let out;
  try {
    out = await def.execute(p.toolCallId, p.input, run.controller.signal, updates.forwarder(run.id, p.toolCallId));
  } catch (err) {
    // After run.abort OpenClaw's tool definition throws the AbortError, which
    // its agent loop hands the model as an error tool result: translated,
    // not a JSON-RPC error (lib/translate.mjs abortedToolResult).
    if (run.controller.signal.aborted) return abortedToolResult(err);
    throw err;
  }
  const details = withCatalogSources(out?.details ?? null);
  // OpenClaw renders a result of a cell that saw network content as its
  // untrusted-content wrapper (renderToolSearchControlText) and keeps the
  // plain result in details: the wrapper in the model's text is what
  // networkContent reports (spec/protocol.md §4.3).
  const text = Array.isArray(out?.content) ? out.content.find((c) => c?.type === "text")?.text : undefined;
  if (details !== null && typeof details === "object" && isUntrustedWrapper(text)) return { ...details, networkContent: true };
  return details;
}


peer.handle = async (method, params) => {
  switch (method) {
    case "initialize":
      if (params?.protocolVersion !== "1") throw new ProtocolError(-32602, `unsupported protocolVersion ${JSON.stringify(params?.protocolVersion)}`);
      await Promise.race([surfaceLoaded().catch(() => {}), new Promise((r) => setTimeout(r, INIT_WAIT_MS).unref())]);
      setImmediate(() => surfaceLoaded().then(() => toolsSchema()).catch(() => {})); // warm it for the first run.prepare
      return {
        protocolVersion: "1",
        implementation: { name: "openclaw", version: `${version}${executor ? `+${executor}` : ""} (code-mode module via targets/openclaw/adapter-v2.mjs${executor ? `; tools.codeMode.executor ${executor}` : ""})` },
        profile: "v2",
        // QuickJS in WebAssembly is the executor whose isolation 001 claims;
        // the Node executor's guards are no security boundary (001).
        // executor-choice and node-executor (CM-CFG-08/09, CM-RUN-07/08):
        // the default target leaves tools.codeMode.executor to the spec, so
        // OpenClaw's default (node) and its choice by config are judged;
        // +quickjs sets the executor in every config, so neither holds there.
        features: [...(hasMcp ? V2_FEATURES : V2_FEATURES.filter((f) => f !== "mcp" && f !== "mcp-resources")), ...(hasHooks ? ["hooks", "approvals"] : []), ...(executor === "quickjs" ? ["isolation"] : ["executor-choice", "node-executor"])],
        notDrivable: [...V2_NOT_DRIVABLE, ...hooksNotDrivable(found)],
      };
    case "run.prepare":
      return prepare(params ?? {});
    case "tool.exec":
    case "tool.wait":
      return toolCall(method, params ?? {});
    case "run.update":
      return update(params ?? {});
    case "agent.turn": {
      const run = getRun(params);
      const p = params ?? {};
      if (!str(p.provider?.baseUrl) || !str(p.provider?.model) || !str(p.user) || typeof p.message !== "string") {
        throw new ProtocolError(-32602, "agent.turn: provider {baseUrl, model}, user and message are required");
      }
      return gateways.turn(run, p);
    }
    case "run.trajectory": {
      // Feature trajectory, agent turns only: the nested activity OpenClaw
      // hands its agent_end hooks for the run's last turn (lib/gateway.mjs
      // trajectoryCalls). The views of nested-activity are not drivable.
      const run = getRun(params);
      if (params?.view != null || params?.reload != null) {
        const nd = V2_NOT_DRIVABLE.find((n) => n.feature === "nested-activity");
        throw new ProtocolError(-32601, `run.trajectory views are feature nested-activity, not drivable: ${nd.reason}`);
      }
      const users = gateways.turnsOf(run.id);
      if (users.length === 0) throw new ProtocolError(-32601, `run.trajectory: run ${JSON.stringify(run.id)} had no agent turn; module-level runs have no OpenClaw transcript (see notDrivable CM-NEST-07)`);
      const messages = await gateways.agentEndMessages(users[users.length - 1], 10000);
      if (messages === null) throw new ProtocolError(-32603, "run.trajectory: OpenClaw ran no agent_end hook for the run's last turn within 10 s");
      return { run: run.id, calls: trajectoryCalls(messages) };
    }
    case "run.end": {
      const run = getRun(params);
      gateways.forgetRun(run.id);
      run.controller.abort();
      run.cleanup?.();
      runs.delete(run.id);
      await run.mcp?.close();
      return true;
    }
    case "run.abort": {
      // OpenClaw's own abort: the abortSignal the tool surface and every
      // exec/wait got. What a later exec or wait does is OpenClaw's; the
      // run stays prepared (cleanup is run.end's). Its MCP servers stop (§5.6).
      const run = getRun(params);
      run.controller.abort();
      await run.mcp?.close();
      return true;
    }
    case "runtime.stats": {
      const nd = V2_NOT_DRIVABLE.find((n) => n.surface === method);
      throw new ProtocolError(-32601, `${method} is not drivable through OpenClaw's code-mode module: ${nd.reason}`);
    }
    case "shutdown":
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
