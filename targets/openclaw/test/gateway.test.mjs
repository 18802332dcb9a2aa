// Offline tests of the gateway mode's translations (lib/gateway.mjs): the
// gateway config, configuration families, the transcript and the parent of
// a nested call. The gateway itself runs only against a real install
// (make openclaw-conformance, feature agent-turn).
import { test } from "node:test";
import assert from "node:assert/strict";
import { familyKey, gatewayConfig, nestedParent, pluginGroups, transcriptMessages, PROVIDER_ID } from "../lib/gateway.mjs";

const prep = {
  run: "run-1",
  agentId: "agent-1",
  sessionId: "s",
  sessionKey: "agent:agent-1:s",
  senderId: "x",
  channel: "conformance",
  codeMode: { enabled: true, timeoutMs: 1000 },
  policy: { deny: ["weather"] },
  tools: [
    { name: "echo", description: "Echo", source: "openclaw", owner: "core" },
    { name: "weather", description: "Weather", source: "plugin", owner: "forecast", parameters: { type: "object" } },
    { name: "pick_color", description: "Pick", source: "client", owner: "webapp" },
  ],
};

test("pluginGroups hosts core and plugin tools in one plugin per owner and leaves client tools to the request", () => {
  const g = pluginGroups(prep.tools);
  assert.deepEqual([...g.keys()], ["core", "forecast"]);
  assert.deepEqual(g.get("forecast").map((t) => t.name), ["weather"]);
});

test("gatewayConfig passes codeMode raw, puts the policy on the agent and keeps the agent to the harness's tools", () => {
  const dirs = new Map([["core", "/p/core"], ["forecast", "/p/forecast"]]);
  const c = gatewayConfig({ prep, model: "m", port: 1234, token: "t", providerBaseUrl: "http://127.0.0.1:9/p/v1", pluginDirs: dirs, stateDir: "/s" });
  assert.deepEqual(c.tools, { allow: ["core", "forecast"], codeMode: { enabled: true, timeoutMs: 1000 } });
  assert.deepEqual(c.agents.list, [{ id: "agent-1", default: true, tools: { deny: ["weather"] } }]);
  assert.deepEqual(c.plugins, { allow: ["core", "forecast"], load: { paths: ["/p/core", "/p/forecast"] } });
  assert.equal(c.agents.defaults.model.primary, `${PROVIDER_ID}/m`);
  assert.equal(c.models.providers[PROVIDER_ID].baseUrl, "http://127.0.0.1:9/p/v1");
  assert.equal(c.gateway.bind, "loopback");
  assert.equal(c.gateway.http.endpoints.chatCompletions.enabled, true);
  // Absent codeMode stays absent; a raw non-object value passes unchanged.
  const { codeMode, ...noCM } = prep;
  assert.equal("codeMode" in gatewayConfig({ prep: noCM, model: "m", port: 1, token: "t", providerBaseUrl: "u", pluginDirs: dirs, stateDir: "/s" }).tools, false);
  assert.deepEqual(gatewayConfig({ prep: { ...prep, agentCodeMode: false }, model: "m", port: 1, token: "t", providerBaseUrl: "u", pluginDirs: dirs, stateDir: "/s" }).agents.list[0].tools, { deny: ["weather"], codeMode: false });
  assert.equal(gatewayConfig({ prep: { ...prep, codeMode: "yes" }, model: "m", port: 1, token: "t", providerBaseUrl: "u", pluginDirs: dirs, stateDir: "/s" }).tools.codeMode, "yes");
});

test("familyKey changes with what the gateway is made of and not with the run's identity", () => {
  const k = familyKey(prep, "m");
  assert.equal(familyKey({ ...prep, run: "run-2", sessionId: "other" }, "m"), k);
  assert.notEqual(familyKey({ ...prep, codeMode: true }, "m"), k);
  assert.notEqual(familyKey({ ...prep, policy: null }, "m"), k);
  assert.notEqual(familyKey(prep, "m2"), k);
  assert.notEqual(familyKey({ ...prep, agentCodeMode: false }, "m"), k);
  const { codeMode, ...noCM } = prep;
  assert.notEqual(familyKey(noCM, "m"), familyKey({ ...prep, codeMode: null }, "m"));
});

test("transcriptMessages rebuilds the turn from the gateway's session entries", () => {
  const entries = [
    { type: "session", id: "s" },
    { type: "message", message: { role: "user", content: "hi" } },
    { type: "message", message: { role: "assistant", content: [{ type: "toolCall", id: "call_0", name: "exec", arguments: { code: "return 1" } }] } },
    { type: "message", message: { role: "toolResult", toolCallId: "call_0", toolName: "exec", content: [{ type: "text", text: '{"status":"completed","value":1}' }] } },
    { type: "custom", customType: "x" },
    { type: "message", message: { role: "assistant", content: [{ type: "text", text: "one" }] } },
  ];
  assert.deepEqual(transcriptMessages(entries), [
    { role: "user", content: "hi" },
    { role: "assistant", content: null, tool_calls: [{ id: "call_0", type: "function", function: { name: "exec", arguments: '{"code":"return 1"}' } }] },
    { role: "tool", tool_call_id: "call_0", content: '{"status":"completed","value":1}' },
    { role: "assistant", content: "one" },
  ]);
});

test("nestedParent reads the parent out of OpenClaw's nested call id and gives none for a direct call", () => {
  assert.equal(nestedParent("tool_search_code:call_0:weather:1", "weather"), "call_0");
  assert.equal(nestedParent("tool_search_code:a:b:c.d:12", "c.d"), "a:b");
  assert.equal(nestedParent("tool_search_code:direct:x:1", "x"), "");
  assert.equal(nestedParent("call_3", "weather"), "");
  assert.equal(nestedParent("tool_search_code:call_0:other:1", "weather"), "");
});
