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

// Partial updates (feature streaming, CM-NEST-11; spec/protocol.md §4). In
// both generations OpenClaw hands a nested tool's execute the onUpdate of
// the exec/wait call whose cell made it (runBridgeRequest → callExactId →
// the catalog executor, onUpdate passed unchanged), also for a call that
// outlives its exec. The adapter translates both ends and nothing between:
// a tool.update from the harness is the harness tool calling its own
// onUpdate, and whatever OpenClaw then delivers to the onUpdate the adapter
// gave exec/wait leaves as tool.progress. nestedToolCallId is set only
// when OpenClaw delivered the very update object the harness tool emitted.
export class Updates {
  constructor(peer) {
    this.peer = peer;
    this.open = new Map(); // "<run>\n<toolCallId>" -> the onUpdate OpenClaw gave that call
    this.emitted = new WeakMap(); // update object -> the toolCallId of the call that emitted it
  }

  // track lets tool.update reach onUpdate while the call is outstanding;
  // the returned function ends that.
  track(run, toolCallId, onUpdate) {
    if (typeof onUpdate !== "function") return () => {};
    const k = `${run}\n${toolCallId}`;
    this.open.set(k, onUpdate);
    return () => {
      if (this.open.get(k) === onUpdate) this.open.delete(k);
    };
  }

  // deliver answers a tool.update notification: the update of a call that
  // is not outstanding is dropped. The update has OpenClaw's tool result
  // shape, as a tool's onUpdate takes it.
  deliver(p) {
    if (typeof p?.run !== "string" || typeof p?.toolCallId !== "string" || p.partial === undefined) return;
    const onUpdate = this.open.get(`${p.run}\n${p.toolCallId}`);
    if (!onUpdate) return;
    const update = { content: [{ type: "text", text: JSON.stringify(p.partial) }], details: p.partial };
    this.emitted.set(update, p.toolCallId);
    onUpdate(update);
  }

  // forwarder is the onUpdate the adapter gives OpenClaw's exec or wait
  // tool for the model's call toolCallId.
  forwarder(run, toolCallId) {
    return (update) => {
      const nested = update !== null && typeof update === "object" ? this.emitted.get(update) : undefined;
      const partial = nested !== undefined ? update.details : update;
      this.peer.notify("tool.progress", { run, toolCallId, ...(nested !== undefined ? { nestedToolCallId: nested } : {}), partial: partial ?? null });
    };
  }
}
