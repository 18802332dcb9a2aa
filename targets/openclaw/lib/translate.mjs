// Pure translations between the driver protocol and OpenClaw's shapes. No
// policy, limits or normalisation: those are OpenClaw's.

// codeModeConfig builds the OpenClaw config for a run.prepare: the raw
// `codeMode` value goes to `tools.codeMode` unchanged; absent means the
// setting is omitted.
// With executor (generation 2's tools.codeMode.executor, chosen by the
// target spelling openclaw:<version>+<executor>), an enabling codeMode
// (true, or an object without its own executor) gets that executor: the
// operator's config choice, as an OpenClaw config would carry it.
export function codeModeConfig(prepare, executor) {
  const tools = {};
  if (Object.prototype.hasOwnProperty.call(prepare, "codeMode")) tools.codeMode = withExecutor(prepare.codeMode, executor);
  return { tools };
}

function withExecutor(codeMode, executor) {
  if (!executor) return codeMode;
  if (codeMode === true || codeMode === "auto") return { enabled: codeMode, executor };
  if (codeMode !== null && typeof codeMode === "object" && !Array.isArray(codeMode) && !Object.prototype.hasOwnProperty.call(codeMode, "executor")) return { ...codeMode, executor };
  return codeMode;
}

// agentTools turns a run.prepare policy into the agent's tools config
// (agents.list[].tools): allow and deny as given, absent or null left out.
export function agentTools(policy) {
  const out = {};
  if (Array.isArray(policy?.allow)) out.allow = policy.allow;
  if (Array.isArray(policy?.deny)) out.deny = policy.deny;
  return out;
}

// modelTools lists what the model sees: {name, description, inputSchema}.
// OpenClaw's parameters are TypeBox schemas, which are JSON Schema objects;
// a JSON round trip drops TypeBox's symbol keys.
export function modelTools(visible) {
  return visible.map((t) => ({
    name: t.name,
    description: t.description ?? "",
    inputSchema: JSON.parse(JSON.stringify(t.parameters ?? { type: "object", properties: {} })),
  }));
}

// isCodeModeSurface reports whether the visible tools are exactly OpenClaw's
// own exec and wait control tools.
export function isCodeModeSurface(visible, codeModeTools) {
  return visible.length === 2 && visible[0] === codeModeTools[0] && visible[1] === codeModeTools[1];
}

// withCatalogSources translates OpenClaw's telemetry.sources (its catalog
// broken down by source, {openclaw, mcp, client, …: count}) into the
// protocol's telemetry.catalogSources (§6), leaving out sources with no
// entry; everything else in the result is passed through unchanged.
export function withCatalogSources(result) {
  const t = result?.telemetry;
  if (!t || typeof t !== "object" || t.catalogSources !== undefined || !t.sources || typeof t.sources !== "object") return result;
  const catalogSources = {};
  for (const [source, n] of Object.entries(t.sources)) if (typeof n === "number" && n > 0) catalogSources[source] = n;
  return { ...result, telemetry: { ...t, catalogSources } };
}

// abortedToolResult translates an exec or wait that OpenClaw ended because
// the run's abort signal fired (run.abort aborted it, §5.6). OpenClaw's tool
// definitions rethrow then (toToolDefinitions: signal.throwIfAborted(), and
// executeAdaptedToolOperation rethrows whatever the tool threw once the
// signal is aborted), and its agent loop turns the throw into the error tool
// result the model receives, text = the error's message, isError
// (agent-core chunk: readyExecution's createToolExecutionErrorResult; a call
// made after the abort gets "Operation aborted" there). The protocol's code
// for a run ended by run.abort is `aborted` (spec/protocol.md §6 codes):
// the failed result, with OpenClaw's message.
export function abortedToolResult(err) {
  const message = typeof err?.message === "string" && err.message !== "" ? err.message : "Operation aborted";
  return { status: "failed", code: "aborted", error: message };
}
