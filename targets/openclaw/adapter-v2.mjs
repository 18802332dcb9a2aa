// Driver-protocol adapter for OpenClaw generation 2 (2026.8–2026.9.6) code
// mode, profile v2.
//
// Same protocol and rules as adapter.mjs (generation 1): it drives OpenClaw's
// own functions from the installed dist/ and only translates. Generation 2
// ships .mjs chunks and no longer exports createCodeModeTools or
// applyCodeModeCatalog; its run setup is createAgentHarnessToolSurfaceRuntimeCore
// (the tool-surface plan: code-mode config, disableTools, raw runs, then the
// exec/wait tools and the hidden catalog), which this adapter calls as the
// agent harness does.
//
//   node adapter-v2.mjs --dist <openclaw>/dist [--version 2026.9.6]

import { pathToFileURL } from "node:url";
import path from "node:path";
import { discoverChunks, loadSurface } from "./lib/chunks.mjs";
import { codeModeConfig, modelTools, agentTools } from "./lib/translate.mjs";
import { Peer } from "./lib/peer.mjs";
import { V2_REQUIRED, V2_FEATURES, V2_NOT_DRIVABLE } from "./lib/v2.mjs";
import { harnessTool } from "./lib/harnesstool.mjs";
import { GatewayPool } from "./lib/gateway.mjs";

const args = process.argv.slice(2);
const arg = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const distDir = arg("--dist") ?? process.env.OPENCLAW_DIST;
const version = arg("--version") ?? "unknown";

function fatal(msg) {
  process.stderr.write(`openclaw adapter (generation 2): ${msg}\n`);
  process.exit(1);
}

// stdout carries protocol lines only (see adapter.mjs).
const protocolOut = { write: process.stdout.write.bind(process.stdout) };
process.stdout.write = process.stderr.write.bind(process.stderr);
for (const k of ["log", "info", "debug"]) console[k] = (...a) => console.error(...a);

if (!distDir) fatal("no OpenClaw dist/ directory: pass --dist <dir> or set OPENCLAW_DIST");

let surface;
try {
  surface = await loadSurface(discoverChunks(distDir, V2_REQUIRED, ".mjs"), (file) => import(pathToFileURL(path.join(distDir, file)).href));
} catch (err) {
  fatal(err.message);
}

const peer = new Peer(process.stdin, protocolOut, (m) => process.stderr.write(m + "\n"));
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

function prepare(p) {
  if (!str(p?.run)) throw new ProtocolError(-32602, "run.prepare: run must be a non-empty string");
  if (runs.has(p.run)) throw new ProtocolError(-32602, `run.prepare: run ${JSON.stringify(p.run)} is already prepared`);
  for (const k of ["agentId", "sessionId", "sessionKey", "senderId", "channel"]) {
    if (!str(p[k])) throw new ProtocolError(-32602, `run.prepare: ${k} must be a non-empty string`);
  }
  if (!Array.isArray(p.tools)) throw new ProtocolError(-32602, "run.prepare: tools must be an array");
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
  for (const what of ["hooks", "approvals", "session"]) {
    if (p[what] != null && p[what] !== false) {
      throw new ProtocolError(-32602, `run.prepare: ${what} is not driven by the generation-2 adapter (feature not declared)`);
    }
  }
  if (Array.isArray(p.mcpServers) && p.mcpServers.length > 0) throw new ProtocolError(-32602, "run.prepare: mcpServers are not driven by the generation-2 adapter (feature mcp not declared)");
  const config = codeModeConfig(p);
  const run = {
    id: p.run,
    context: { agentId: p.agentId, sessionId: p.sessionId, sessionKey: p.sessionKey, senderId: p.senderId, channel: p.channel },
    prepare: p, // for agent.turn (gateway mode)
    catalogIds: new Map(),
    controller: new AbortController(),
  };
  const make = (t) => harnessTool(surface, peer, run, t, { executionMode: true });
  let own = p.tools.filter((t) => t.source !== "client").map(make);
  if (p.policy != null) {
    // The agent's tools.allow/deny through OpenClaw's own policy pipeline,
    // before the tool surface, as in generation 1.
    const steps = surface.buildDefaultToolPolicyPipelineSteps({ agentPolicy: surface.pickSandboxToolPolicy(agentTools(p.policy)), agentId: p.agentId });
    own = surface.applyToolPolicyPipeline({ tools: own, toolMeta: (t) => surface.getPluginToolMeta(t), warn: (m) => process.stderr.write(`openclaw: ${m}\n`), steps });
  }
  const client = p.tools.filter((t) => t.source === "client").map(make);
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
      executeTool: async (c) => c.acceptResultBeforeProjection(await c.tool.execute(c.toolCallId, c.input, c.signal, c.onUpdate, { parentToolCallId: c.parentToolCallId })),
    });
  } catch (err) {
    // OpenClaw refuses the config (e.g. an unknown executor) while planning
    // the run: the model sees no tools at all.
    throw new ProtocolError(-32602, `run.prepare: OpenClaw refused the run setup: ${err.message}`);
  }
  if (!core.codeModeControlsEnabled) {
    run.active = false;
    runs.set(p.run, run);
    return { run: p.run, codeModeActive: false, tools: modelTools([...own, ...client]) };
  }
  const compacted = core.compactTools(own);
  let visible = compacted.tools;
  if (client.length > 0) {
    visible = [...visible, ...surface.addClientToolsToCodeModeCatalog({ config, agentId: p.agentId, sessionId: p.sessionId, sessionKey: p.sessionKey, runId: p.run, catalogRef: core.toolSearchCatalogRef, tools: client }).tools];
  }
  for (const e of core.toolSearchCatalogRef?.current?.entries ?? []) if (e.tool) run.catalogIds.set(e.tool, e.id);
  const exec = visible.find((t) => t.name === "exec");
  const wait = visible.find((t) => t.name === "wait");
  run.active = visible.length === 2 && exec !== undefined && wait !== undefined;
  // The agent loop runs every tool through toToolDefinitions, which turns a
  // thrown error into the tool result {status: "error", tool, error}.
  const defs = surface.toToolDefinitions([exec, wait].filter(Boolean));
  run.exec = defs.find((d) => d.name === "exec");
  run.wait = defs.find((d) => d.name === "wait");
  run.cleanup = core.cleanup;
  runs.set(p.run, run);
  return { run: p.run, codeModeActive: run.active, tools: modelTools(visible) };
}

async function toolCall(which, p) {
  // Wrong member types are invalid params (-32602) before any run lookup.
  if (typeof p.run !== "string" || typeof p.toolCallId !== "string") throw new ProtocolError(-32602, `${which}: run and toolCallId must be strings`);
  const run = getRun(p);
  if (!run.active) throw new ProtocolError(-32600, `${which}: code mode is not active in run ${JSON.stringify(run.id)}`);
  if (!str(p.toolCallId)) throw new ProtocolError(-32602, `${which}: toolCallId must be a non-empty string`);
  const def = which === "tool.exec" ? run.exec : run.wait;
  const out = await def.execute(p.toolCallId, p.input, run.controller.signal, undefined);
  return out?.details ?? null;
}

peer.handle = async (method, params) => {
  switch (method) {
    case "initialize":
      if (params?.protocolVersion !== "1") throw new ProtocolError(-32602, `unsupported protocolVersion ${JSON.stringify(params?.protocolVersion)}`);
      return {
        protocolVersion: "1",
        implementation: { name: "openclaw", version: `${version} (code-mode module via targets/openclaw/adapter-v2.mjs)` },
        profile: "v2",
        features: V2_FEATURES,
        notDrivable: V2_NOT_DRIVABLE,
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
    case "run.end": {
      const run = getRun(params);
      run.controller.abort();
      run.cleanup?.();
      runs.delete(run.id);
      return true;
    }
    case "run.abort":
    case "runtime.stats": {
      if (method === "run.abort") getRun(params);
      const nd = V2_NOT_DRIVABLE.find((n) => n.surface === method);
      throw new ProtocolError(-32601, `${method} is not drivable through OpenClaw's code-mode module: ${nd.reason}`);
    }
    case "shutdown":
      setImmediate(() => gateways.close().finally(() => process.exit(0)));
      return true;
    default:
      throw new ProtocolError(-32601, `unknown method ${JSON.stringify(method)}`);
  }
};
peer.onEnd = () => gateways.close().finally(() => process.exit(0));
peer.start();
