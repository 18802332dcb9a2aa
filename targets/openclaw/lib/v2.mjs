// What the generation-2 adapter (adapter-v2.mjs) drives: OpenClaw
// 2026.8–2026.9.6, profile v2 (page 001).

// The functions it calls, by source name, found by discoverChunks in the
// .mjs chunks. createAgentHarnessToolSurfaceRuntimeCore is OpenClaw's run
// setup for the tool surface; generation 2 no longer exports
// createCodeModeTools, applyCodeModeCatalog or resolveCodeModeConfig.
export const V2_REQUIRED = [
  "createAgentHarnessToolSurfaceRuntimeCore",
  "addClientToolsToCodeModeCatalog",
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
// wait failures are OpenClaw's. results: results.save is OpenClaw's store.
// agent-turn: each agent.turn runs through a real `openclaw gateway` of the
// installed version (lib/gateway.mjs).
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
  "agent-turn",
];

export const V2_NOT_DRIVABLE = [
  { requirement: "CM-ACT-03", reason: "its cases are one spec: a raw call and disableTools are decided in OpenClaw's agent setup, which builds the model-visible tool list outside the tool-surface module (not drivable), so the spec cannot be judged as a whole" },
  { surface: "disableTools", reason: "OpenClaw's tool-surface plan only turns code mode off for disableTools; which tools the model then sees is decided by the agent setup outside the module" },
  { surface: "raw", reason: "a raw model call builds no tools in OpenClaw; the tool-surface module only turns code mode off" },
  { surface: "runtime.stats", reason: "OpenClaw keeps suspended runs in a module-private map (activeRuns in code-mode-state) and runs cells in worker threads it pools privately; neither count is exported" },
  { surface: "run.abort", reason: "OpenClaw 2026.9.6 exports no abort entry point for one code-mode run; aborting the agent run's signal is what run.end does, and it ends the run" },
  { surface: "hooks", reason: "before_tool_call hooks are registered by plugins through OpenClaw's plugin loader and hook runner (a gateway or agent process), not through the code-mode module" },
  { surface: "approvals", reason: "approvals go through OpenClaw's gateway approval flow, not through the code-mode module" },
];
