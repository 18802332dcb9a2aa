// Hooks and approvals (features hooks and approvals, spec/protocol.md §4.1)
// through OpenClaw 2026.7.35's own before_tool_call machinery:
//
// - The harness's hook is one typed before_tool_call plugin hook in
//   OpenClaw's global hook runner (initializeGlobalHookRunner, the
//   hook-runner-global chunk), as a plugin's api.on("before_tool_call")
//   registers it. OpenClaw runs it for the outer exec (toToolDefinitions
//   with a hook context: toolKind code_mode_exec, toolInputKind) and for
//   every catalog tool (applyCodeModeCatalog's toolHookContext, which wraps
//   each entry with wrapToolWithBeforeToolCallHook). The hook asks the
//   harness (hook.beforeToolCall) and answers OpenClaw's {block,
//   blockReason, params}; what a block does to the guest is OpenClaw's.
// - An approval is the same hook answering {requireApproval} for the tools
//   run.prepare's approvals name, as an approval plugin does; OpenClaw asks
//   its embedded plugin approval broker (EmbeddedPluginApprovalBroker, the
//   one its embedded/TUI host installs with setEmbeddedMode and
//   setEmbeddedPluginApprovalBroker), and the broker's requests go to the
//   harness as approval.request; its answer resolves the broker's request
//   (allow-once or deny).
//
// Only runs that opt in (run.prepare hooks/approvals) get a hook context,
// so an unhooked run goes through OpenClaw exactly as before.

// HOOKS_REQUIRED are the functions by source name (discoverChunks).
export const HOOKS_REQUIRED = ["initializeGlobalHookRunner", "setEmbeddedMode", "setEmbeddedPluginApprovalBroker", "EmbeddedPluginApprovalBroker"];

// hooksNotDrivable is initialize's notDrivable entries for a dist that
// lacks some of HOOKS_REQUIRED ([] when it has them all, and hooks and
// approvals are declared): features hooks and approvals, each naming the
// OpenClaw functions this dist does not export (spec/protocol.md §3
// notDrivable[].feature), so the report says "not drivable" with the
// missing function instead of "not declared".
export function hooksNotDrivable(found) {
  const missing = HOOKS_REQUIRED.filter((n) => found[n] === undefined);
  if (missing.length === 0) return [];
  const why = `this OpenClaw dist exports no ${missing.join(", ")}: the harness's before_tool_call hook is registered in OpenClaw's global hook runner and approvals are answered through its embedded plugin approval broker, and without them neither can be driven`;
  return [{ feature: "hooks", reason: why }, { feature: "approvals", reason: why }];
}

const PLUGIN_ID = "codemode-conformance-harness";
const CODE_MODE_EXEC = "code_mode_exec";

// gatesOf reads run.prepare's hooks and approvals members: null when the
// run opted into neither, else {hook: bool, approvals: Set<string>}; a
// string is the bad-params message.
export function gatesOf(p) {
  const hook = p.hooks?.beforeToolCall === true;
  if (p.approvals != null && !Array.isArray(p.approvals?.tools)) return "approvals.tools must be an array of tool names";
  const approvals = new Set(p.approvals?.tools ?? []);
  if (!hook && approvals.size === 0) return null;
  return { hook, approvals };
}

// hookContext is OpenClaw's tool hook context for a run (the fields its run
// setup gives catalogToolHookContext that the module has).
export function hookContext(p, config) {
  return { agentId: p.agentId, config, sessionKey: p.sessionKey, sessionId: p.sessionId, runId: p.run };
}

// installGates registers the harness hook and the approval broker once per
// process. runs is the adapter's Map of runs ({id, gates, calls}), keyed by
// the runId OpenClaw's hook context carries; calls maps an in-flight nested
// toolCallId to {toolCallId, parent, catalogId, tool, input} as OpenClaw's
// catalog executor named them (recordCall).
export function installGates(surface, peer, runs, log) {
  const findCall = (request) => {
    for (const run of runs.values()) {
      const call = run.calls?.get(request.toolCallId);
      if (call && run.context.sessionKey === request.sessionKey) return { run, call };
    }
    return null;
  };
  const handler = async (event, ctx) => {
    const run = runs.get(ctx?.runId);
    if (!run?.gates) return undefined;
    const call = run.calls.get(event.toolCallId);
    if (event.toolKind !== CODE_MODE_EXEC && !call) return undefined; // wait, or an outer tool: no §4.1 event
    if (call) call.input = event.params ?? call.input; // what the call will carry
    const result = {};
    if (run.gates.hook) {
      const params = call
        ? { run: run.id, toolCallId: event.toolCallId, parentToolCallId: call.parent ?? "", catalogId: call.catalogId ?? "", tool: call.tool, input: event.params ?? {}, toolKind: "nested" }
        : { run: run.id, toolCallId: event.toolCallId, tool: "exec", input: event.params ?? {}, toolKind: CODE_MODE_EXEC, ...(event.toolInputKind ? { toolInputKind: event.toolInputKind } : {}) };
      const answer = await peer.request("hook.beforeToolCall", params);
      const d = answer.result;
      // §4.1: an error or an unknown decision is a block (fail closed).
      if (answer.error || d?.decision !== "allow") return { block: true, blockReason: d?.reason || answer.error?.message || "blocked by the harness hook" };
      if (d.params !== undefined) result.params = d.params;
    }
    if (call && run.gates.approvals.has(call.tool)) {
      result.requireApproval = { title: `Approve ${call.tool}`, description: `nested call ${event.toolCallId} of ${call.tool}`, allowedDecisions: ["allow-once", "deny"] };
    }
    return Object.keys(result).length > 0 ? result : undefined;
  };
  surface.initializeGlobalHookRunner({
    hooks: [],
    typedHooks: [{ pluginId: PLUGIN_ID, hookName: "before_tool_call", handler, source: "codemode-conformance" }],
    plugins: [{ id: PLUGIN_ID, status: "loaded" }],
    trustedToolPolicies: [],
  });
  const broker = new surface.EmbeddedPluginApprovalBroker();
  surface.setEmbeddedMode(true);
  surface.setEmbeddedPluginApprovalBroker(broker);
  broker.subscribe((ev) => {
    if (ev.event !== "plugin.approval.requested") return;
    const { id, request } = ev.payload;
    const found = findCall(request);
    if (!found) {
      log(`approval ${id} for ${request.toolCallId}: no run has that nested call; denied`);
      broker.resolve(id, "deny");
      return;
    }
    decide(peer, broker, id, found).catch((err) => {
      log(`approval ${id}: ${err.message}; denied`);
      broker.resolve(id, "deny");
    });
  });
}

// decide asks the harness about one approval until it is approved or
// denied; pending answers are asked again with their approvalId (§4.1).
async function decide(peer, broker, id, { run, call }) {
  const base = { run: run.id, toolCallId: call.toolCallId, parentToolCallId: call.parent ?? "", catalogId: call.catalogId ?? "", tool: call.tool, input: call.input ?? {} };
  let approvalId;
  for (;;) {
    if (run.calls.get(call.toolCallId) !== call) return; // the call ended (its run ended or aborted)
    const answer = await peer.request("approval.request", approvalId ? { ...base, approvalId } : base);
    const d = answer.result;
    if (!answer.error && d?.decision === "approved") return broker.resolve(id, "allow-once");
    if (!answer.error && d?.decision === "pending" && typeof d.approvalId === "string" && d.approvalId !== "") {
      approvalId = d.approvalId;
      continue;
    }
    return broker.resolve(id, "deny"); // denied, an error or an unknown decision (fail closed)
  }
}

// recordCall keeps what OpenClaw's catalog executor says of a nested call
// (c: its executeTool params) while it is in flight, for the hook, the
// approval and tool.invoke (wrapToolWithBeforeToolCallHook does not pass
// the executor's parentToolCallId on to the tool); done() forgets it.
// An MCP entry's tool is named as the MCP server names it (§4.1), from the
// catalog entry OpenClaw classified (run.catalogEntries, tool → entry).
// 2026.9.6 hands the executor a per-call execution copy of the entry's
// tool, so there the entry is the one with the executor's source,
// sourceName and name.
export function recordCall(run, c) {
  const entries = run.catalogEntries ?? new Map();
  const entry = entries.get(c.tool) ?? [...entries.values()].find((e) => e.source === c.source && e.sourceName === c.sourceName && e.name === c.toolName);
  const call = { toolCallId: c.toolCallId, parent: c.parentToolCallId, catalogId: entry?.id ?? run.catalogIds.get(c.tool), tool: entry?.mcp?.toolName ?? c.toolName, input: c.input };
  run.calls.set(c.toolCallId, call);
  return () => {
    if (run.calls.get(c.toolCallId) === call) run.calls.delete(c.toolCallId);
  };
}
