// What both adapters say about the run's policies on nested calls
// (spec/protocol.md §3 run.prepare sandbox, §4; CM-NEST-10).

// Feature sandbox is not drivable through the code-mode module: OpenClaw
// fixes the sandbox policy when it builds a run's tools, not per call.
export const SANDBOX_NOT_DRIVABLE = {
  feature: "sandbox",
  reason:
    "OpenClaw binds the sandbox policy (agents.*.sandbox, resolved by resolveSandboxContext, which starts the Docker sandbox) when its run setup builds the tools: core tools get the sandbox context (fs bridge, container workdir) and plugin tool factories get ctx.sandboxed (createOpenClawTools). The code-mode catalog holds those same tool instances and a nested call runs them through the run's catalog executor with no per-call sandbox information, so the policy is fixed outside the code-mode module. The adapter builds the harness's tools itself, through no plugin factory and with no sandbox context, so a sandbox it put in tool.invoke's context would be its own statement, not OpenClaw's",
};

// refuseSandbox answers run.prepare's sandbox with the reason (a listed
// surface is refused, never ignored: §3 initialize notDrivable).
export function refuseSandbox(p, ProtocolError) {
  if (p?.sandbox != null) throw new ProtocolError(-32602, `run.prepare: sandbox is not drivable through OpenClaw's code-mode module: ${SANDBOX_NOT_DRIVABLE.reason}`);
}
