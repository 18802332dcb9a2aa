// OpenClaw plugin template for the gateway mode of the openclaw: target
// (lib/gateway.mjs). The adapter copies this file as index.mjs into one
// generated plugin directory per plugin owner of a run.prepare, next to
// openclaw.plugin.json (contracts.tools lists the tools) and tools.json (the
// harness's tool specs). The gateway loads it through plugins.load.paths.
//
// Every tool forwards each invocation, with the tool context OpenClaw gives
// the plugin's tool factory, to the adapter's bridge
// (CODEMODE_GATEWAY_BRIDGE, a loopback URL with a secret path), which sends
// it to the harness as tool.invoke. The tool does nothing else: what the
// guest and the model see is OpenClaw's handling of the harness's answer.

import fs from "node:fs";

const spec = JSON.parse(fs.readFileSync(new URL("./tools.json", import.meta.url), "utf8"));
const bridge = process.env.CODEMODE_GATEWAY_BRIDGE;

async function forward(body, signal) {
  if (!bridge) throw new Error("codemode-conformance: CODEMODE_GATEWAY_BRIDGE is not set in the gateway's environment");
  const res = await fetch(bridge, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal });
  const answer = await res.json();
  if (answer.error) {
    const e = new Error(answer.error.message);
    if (answer.error.data !== undefined) e.data = answer.error.data;
    throw e;
  }
  return answer.result;
}

export default {
  id: spec.id,
  name: spec.id,
  description: "codemode-conformance harness tools (forwarded to the harness as tool.invoke)",
  register(api) {
    // The agent run's own trajectory (feature trajectory): OpenClaw hands
    // agent_end hooks the run's messages with its transcript projection of
    // the nested calls (projectToolSearchTargetTranscriptMessages), which
    // exists nowhere else outside its embedded attempt. Forwarded as is.
    api.on?.("agent_end", async (event, ctx) => {
      await forward({ kind: "agent_end", plugin: spec.id, context: { sessionKey: ctx?.sessionKey, runId: ctx?.runId }, messages: event?.messages ?? [] });
    });
    for (const t of spec.tools) {
      api.registerTool(
        (ctx) => ({
          name: t.name,
          ...(t.label !== undefined ? { label: t.label } : {}),
          description: t.description ?? "",
          parameters: t.parameters ?? { type: "object", properties: {} },
          // OpenClaw's own tool field for a network-controlled tool
          // (feature untrusted-content, spec/protocol.md §4.3).
          ...(t.resultContentSource === "network" ? { resultContentSource: "network" } : {}),
          async execute(toolCallId, input, signal) {
            const value = await forward(
              {
                plugin: spec.id,
                tool: t.name,
                toolCallId,
                input: input ?? {},
                context: {
                  agentId: ctx?.agentId,
                  sessionId: ctx?.sessionId,
                  sessionKey: ctx?.sessionKey,
                  senderId: ctx?.requesterSenderId,
                  channel: ctx?.messageChannel,
                },
              },
              signal,
            );
            // The same tool result shape as the module-level adapter's
            // harness tools: text for the model, the value as details.
            return { content: [{ type: "text", text: JSON.stringify(value) ?? "null" }], details: value };
          },
        }),
        { names: [t.name] },
      );
    }
  },
};
