// MCP servers of a run (feature mcp, spec/protocol.md §5.6) through
// OpenClaw's own session MCP runtime: run.prepare's mcpServers become
// OpenClaw's `mcp.servers` config, getOrCreateSessionMcpRuntime connects to
// them (OpenClaw's stdio and streamable-HTTP transports, its MCP client) and
// materializeBundleMcpToolsForRun turns their tools, resources and prompts
// into agent tools with the bundle-mcp metadata that code mode's MCP global,
// API files and catalog ids come from. That is OpenClaw's run setup
// (selection-*.js, its embedded attempt); the adapter only gives each run
// its own MCP session, as the harness's servers belong to one run.

// MCP_REQUIRED are the functions by source name (discoverChunks).
export const MCP_REQUIRED = ["getOrCreateSessionMcpRuntime", "materializeBundleMcpToolsForRun", "disposeSessionMcpRuntime"];

// mcpSessionId is the OpenClaw session the run's MCP runtime is keyed by.
export function mcpSessionId(run) {
  return `conformance-run:${run}`;
}

// mcpServersConfig checks run.prepare's mcpServers (§5.6 bad params: the
// error message, or null) and returns OpenClaw's `mcp.servers` record:
// stdio as {command, args, env}, http as {url, transport:
// "streamable-http"}.
export function mcpServersConfig(list) {
  if (list == null) return { servers: {} };
  if (!Array.isArray(list)) return { error: "mcpServers must be an array" };
  const servers = {};
  for (const s of list) {
    if (typeof s?.name !== "string" || s.name === "") return { error: "an MCP server needs a non-empty name" };
    if (Object.prototype.hasOwnProperty.call(servers, s.name)) return { error: `duplicate MCP server name ${JSON.stringify(s.name)}` };
    if (s.transport === "stdio") {
      if (typeof s.command !== "string" || s.command === "") return { error: `MCP server ${JSON.stringify(s.name)}: stdio needs a command` };
      servers[s.name] = { command: s.command, ...(Array.isArray(s.args) ? { args: s.args } : {}), ...(s.env && typeof s.env === "object" ? { env: s.env } : {}) };
    } else if (s.transport === "http") {
      if (typeof s.url !== "string" || s.url === "") return { error: `MCP server ${JSON.stringify(s.name)}: http needs a url` };
      servers[s.name] = { url: s.url, transport: "streamable-http" };
    } else return { error: `MCP server ${JSON.stringify(s.name)}: unknown transport ${JSON.stringify(s.transport)}` };
  }
  return { servers };
}

// openMcp connects the run's servers as OpenClaw's run setup does and
// returns {tools, close}: tools are OpenClaw's agent tools for them (none
// when no server is given), close disposes the runtime, which closes the
// sessions and stops the stdio children OpenClaw started.
export async function openMcp(surface, { run, sessionKey, servers, reservedToolNames, log }) {
  if (Object.keys(servers).length === 0) return { tools: [], close: async () => {} };
  const sessionId = mcpSessionId(run);
  const cfg = { mcp: { servers } };
  const runtime = await surface.getOrCreateSessionMcpRuntime({ sessionId, sessionKey, workspaceDir: process.cwd(), cfg });
  let materialized;
  try {
    materialized = await surface.materializeBundleMcpToolsForRun({ runtime, reservedToolNames });
  } catch (err) {
    await surface.disposeSessionMcpRuntime(sessionId).catch(() => {});
    throw err;
  }
  for (const d of materialized.diagnostics ?? []) log(`bundle-mcp: ${JSON.stringify(d)}`);
  let closed;
  return {
    tools: materialized.tools,
    close: () =>
      (closed ??= (async () => {
        await materialized.dispose().catch((e) => log(`bundle-mcp dispose: ${e.message}`));
        await surface.disposeSessionMcpRuntime(sessionId).catch((e) => log(`bundle-mcp dispose: ${e.message}`));
      })()),
  };
}

// MCP_V2_REQUIRED: generation 2 keeps session MCP runtimes behind a
// lease-counting manager (acquireSessionMcpRuntime) and exports
// createBundleMcpToolRuntime, its own one-run MCP runtime (a fresh
// createSessionMcpRuntime materialised by materializeBundleMcpToolsForRun,
// disposed with it), which is what a run with its own servers needs.
export const MCP_V2_REQUIRED = ["createBundleMcpToolRuntime"];

// openMcpV2 is openMcp for generation 2.
export async function openMcpV2(surface, { servers, reservedToolNames, log }) {
  if (Object.keys(servers).length === 0) return { tools: [], close: async () => {} };
  const materialized = await surface.createBundleMcpToolRuntime({ workspaceDir: process.cwd(), cfg: { mcp: { servers } }, reservedToolNames });
  for (const d of materialized.diagnostics ?? []) log(`bundle-mcp: ${JSON.stringify(d)}`);
  let closed;
  return {
    tools: materialized.tools,
    close: () => (closed ??= materialized.dispose().catch((e) => log(`bundle-mcp dispose: ${e.message}`))),
  };
}
