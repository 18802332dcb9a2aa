// Shared by both generations' adapters.

// harnessTool turns a harness ToolSpec into an OpenClaw tool whose execute
// sends tool.invoke to the harness; the answer becomes OpenClaw's tool result
// shape {content: [{type: "text", text}], details}. With executionMode (the
// generation-2 adapter), the spec's executionMode is passed on as OpenClaw's
// own tool field (the scheduler in ToolSearchRuntime reads it).
// With resultContentSource (the generation-2 adapter), a network-controlled
// spec (resultContentSource "network") sets OpenClaw's own tool field of that
// name, which its ToolSearchRuntime reads to track network invocations.
// With updates (lib/nestedcalls.mjs Updates), the harness's tool.update for
// the call reaches the onUpdate OpenClaw gave execute.
export function harnessTool(surface, peer, run, spec, { executionMode = false, resultContentSource = false, updates } = {}) {
  const tool = {
    name: spec.name,
    label: spec.label,
    description: spec.description ?? "",
    parameters: spec.parameters ?? { type: "object", properties: {} },
    execute: async (toolCallId, input, signal, onUpdate, meta) => {
      // A hooked run's catalog tools are OpenClaw's wrapped copies, whose
      // execute drops the executor's meta: then the parent and catalog id
      // are those OpenClaw's catalog executor gave (lib/hooks.mjs recordCall).
      const call = run.calls?.get(toolCallId);
      const params = {
        run: run.id,
        toolCallId,
        // Only what OpenClaw itself says: an invented parent would let the
        // adapter vouch for nesting (CM-NEST-01) instead of OpenClaw.
        parentToolCallId: meta?.parentToolCallId ?? call?.parent ?? "",
        catalogId: run.catalogIds.get(tool) ?? call?.catalogId ?? "",
        tool: spec.name,
        source: spec.source,
        owner: spec.owner,
        input: input ?? {},
        context: run.context,
      };
      const untrack = updates?.track(run.id, toolCallId, onUpdate);
      let answer;
      try {
        answer = await peer.request("tool.invoke", params, signal, () => peer.notify("tool.cancel", { run: run.id, toolCallId }));
      } finally {
        untrack?.();
      }
      if (answer.error) {
        const e = new Error(answer.error.message);
        if (answer.error.data !== undefined) e.data = answer.error.data;
        throw e;
      }
      const value = answer.result?.result;
      return { content: [{ type: "text", text: JSON.stringify(value) ?? "null" }], details: value };
    },
  };
  if (executionMode && spec.executionMode !== undefined) tool.executionMode = spec.executionMode;
  if (resultContentSource && spec.resultContentSource === "network") tool.resultContentSource = "network";
  // The ToolSpec's declared output schema is OpenClaw's own tool field
  // (catalogued for source openclaw; CM-TS-06).
  if (spec.outputSchema !== undefined) tool.outputSchema = spec.outputSchema;
  if (spec.source === "plugin") surface.setPluginToolMeta(tool, { pluginId: spec.owner, optional: false });
  if (spec.source === "mcp") {
    surface.setPluginToolMeta(tool, {
      pluginId: "bundle-mcp",
      optional: false,
      mcp: { serverName: spec.owner, safeServerName: spec.owner, toolName: spec.name, operation: "tool" },
    });
  }
  return tool;
}
