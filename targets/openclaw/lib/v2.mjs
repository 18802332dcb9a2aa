// What the generation-2 adapter (adapter-v2.mjs) drives: OpenClaw
// 2026.8–2026.9.6, profile v2 (page 001).

import { SANDBOX_NOT_DRIVABLE } from "./nestedcalls.mjs";

// The functions it calls, by source name, found by discoverChunks in the
// .mjs chunks. createAgentHarnessToolSurfaceRuntimeCore is OpenClaw's run
// setup for the tool surface; generation 2 no longer exports
// createCodeModeTools, applyCodeModeCatalog or resolveCodeModeConfig.
// createToolSearchTools and addClientToolsToToolSearchCatalog build the
// surface of a run without code mode, which is Tool Search by default.
export const V2_REQUIRED = [
  "createAgentHarnessToolSurfaceRuntimeCore",
  "addClientToolsToCodeModeCatalog",
  "createToolSearchTools",
  "addClientToolsToToolSearchCatalog",
  "setPluginToolMeta",
  "getPluginToolMeta",
  "toToolDefinitions",
  "pickSandboxToolPolicy",
  "buildDefaultToolPolicyPipelineSteps",
  "applyToolPolicyPipeline",
];

// Features of profile v2 whose behaviour the adapter drives through
// OpenClaw's functions (spec/protocol.md §9). The guest program is passed
// unchanged, so whatever guest API the specs use is judged as OpenClaw runs
// it. yield: yield_control suspends with reason "yield". javascript-only:
// OpenClaw's exec refuses `language`. shell-exec: a core tool named exec is
// catalogued as openclaw:core:exec. telemetry: passed through unchanged.
// bridge-queue, execution-mode: OpenClaw's guest controller and
// ToolSearchRuntime queue and order the nested calls; the adapter only
// forwards each call and the tool's executionMode. run-lifecycle-messages:
// wait failures are OpenClaw's. results: results.save is OpenClaw's store,
// and run.update goes through OpenClaw's own catalog functions (compactTools,
// the prompt-build tool policy, addClientToolsToCodeModeCatalog).
// untrusted-content: a network-controlled spec sets OpenClaw's own
// resultContentSource on the tool, and networkContent reports the wrapper
// OpenClaw puts around the exec/wait result's text.
// streaming: see lib/nestedcalls.mjs.
// agent-turn: each agent.turn runs through a real `openclaw gateway` of the
// installed version (lib/gateway.mjs).
// hooks and approvals are added by adapter-v2.mjs where the dist has the
// global hook runner (lib/hooks.mjs).
export const V2_FEATURES = [
  "core",
  "yield",
  "javascript-only",
  "shell-exec",
  "telemetry",
  "bridge-queue",
  "execution-mode",
  "run-lifecycle-messages",
  "results",
  "untrusted-content",
  "streaming", // OpenClaw hands a nested tool the exec's onUpdate (lib/nestedcalls.mjs)
  "agent-turn",
  "mcp", // run.prepare's mcpServers through OpenClaw's createBundleMcpToolRuntime (lib/mcp.mjs)
  "mcp-resources",
  // trajectory, for agent turns: the nested activity (openclaw.nested-tool.v1)
  // OpenClaw hands the gateway plugins' agent_end hooks (lib/gateway.mjs).
  "trajectory",
];

export const V2_NOT_DRIVABLE = [
  { requirement: "CM-ACT-03", reason: "its cases are one spec: a raw call and disableTools are decided in OpenClaw's agent setup, which builds the model-visible tool list outside the tool-surface module (not drivable), so the spec cannot be judged as a whole" },
  { surface: "disableTools", reason: "OpenClaw's tool-surface plan only turns code mode off for disableTools; which tools the model then sees is decided by the agent setup outside the module" },
  { surface: "raw", reason: "a raw model call builds no tools in OpenClaw; the tool-surface module only turns code mode off" },
  { surface: "runtime.stats", reason: "OpenClaw keeps suspended runs in a module-private map (activeRuns in code-mode-state) and runs cells in worker threads it pools privately; neither count is exported" },
  { requirement: "CM-NEST-07", reason: "its specs trace module-level runs (tool.exec/tool.wait without an agent turn), and 2026.9.6 records nested activity only in its embedded agent runner (createSubscribedToolSearchExecutor, builtin-openclaw chunk, through the attempt's session manager), which a module-level run never starts; agent turns are traced (feature trajectory, CM-E2E-08/09)" },
  { requirement: "CM-RES-06", reason: "runCodeModeScriptHeadless (tool-surface-bridge chunk), 9.6's headless execution, is called only by the gateway's cron trigger runner (createCronCodeModeRunner, server-cron chunk: one job script run to completion under a cron run admission, with a run owner of its own), not a mode of the exec and wait tools the adapter drives; the spec selects headless execution through run.prepare's session ({branch, headless: true}) and its interactive control through a session branch, which 2026.9.6's tool surface has no counterpart for (no store/load bridge methods, no session branch: feature session-store not declared)" },
  // A feature 2026.9.6 has that this adapter cannot drive (§3
  // notDrivable[].feature): its specs are skipped as not drivable.
  { feature: "nested-activity", reason: "2026.9.6 writes nested activity (openclaw.nested-tool.v1 custom messages) in the embedded agent runner's tool-search executor (createSubscribedToolSearchExecutor, builtin-openclaw chunk) through an agent attempt's session manager, and projects history and agent-end hook input (projectNestedToolActivityForHooks) there too; the tool-surface module this adapter drives has no session manager, transcript or before_message_write/agent_end hook runner, so neither run.trajectory's activity and replay views nor the message hooks can be translated. assistantResponseId could be (runWithAgentToolExecutionContext's assistantMessage.responseId feeds codeModeReplayIdForToolCall), but the module's nested toolCallIds are tool_search_code:<exec call id>:<tool>:<n>, counted per exec, so the replay identity reaches only the persisted rows' runId and scopeId" },
  { feature: "namespaces", reason: "2026.9.6 has no plugin namespace registry: its createCodeModeNamespaceRuntime(catalog) (tool-surface-bridge chunk) builds only the MCP namespace and the swarm agents API; registerCodeModeNamespace, listCodeModeNamespaces and the Symbol.for(\"openclaw.codeMode.namespaces\") registry of 2026.7.35 are gone, so there is nothing to register a namespace in" },
  { feature: "direct-only-tools", reason: "2026.9.6 keeps one tool direct beside exec and wait, the message tool, and only when it owns the visible reply (applyAgentToolSurfaceCatalog's directToolNames is [\"message\"] when messageToolOwnsVisibleReply, tool-surface-bridge chunk); it has no per-tool direct-only setting, so run.prepare's tools[].directOnly cannot be translated onto it" },
  SANDBOX_NOT_DRIVABLE,
];

// isUntrustedWrapper reports whether text is, as a whole, OpenClaw's
// wrapExternalContent wrapper with Source API: the security notice, then
// start and end markers with the same id.
const UNTRUSTED_NOTICE = "SECURITY NOTICE: The following content is from an EXTERNAL, UNTRUSTED source";
const UNTRUSTED_WRAPPER = /\n\n\n<<<EXTERNAL_UNTRUSTED_CONTENT id="([0-9a-f]{16})">>>\nSource: API\n---\n[\s\S]*\n<<<END_EXTERNAL_UNTRUSTED_CONTENT id="\1">>>$/;
export function isUntrustedWrapper(text) {
  return typeof text === "string" && text.startsWith(UNTRUSTED_NOTICE) && UNTRUSTED_WRAPPER.test(text);
}
