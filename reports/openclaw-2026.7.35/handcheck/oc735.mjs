// The run setup the hand checks share: OpenClaw 2026.7.35's own createCodeModeTools,
// applyCodeModeCatalog and toToolDefinitions from its dist/ (found by export name), plain tools in
// OpenClaw's tool shape, and `waiting` followed with `wait` as the agent loop does. No harness, no adapter.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { discoverChunks, loadSurface } from "../../../targets/openclaw/lib/chunks.mjs";

const dist = process.env.OPENCLAW_DIST ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(process.env.HOME, ".cache"), "codemode-conformance/openclaw-2026.7.35/node_modules/openclaw/dist");
export const s = await loadSurface(discoverChunks(dist), (f) => import(pathToFileURL(path.join(dist, f)).href));

export const invoked = [];
const jsonResult = (v) => ({ content: [{ type: "text", text: JSON.stringify(v) ?? "null" }], details: v });
const nest = (n) => { let x = []; for (let i = 1; i < n; i++) x = [x]; return x; };
const behave = {
  echo: async (i) => i,
  slow: async (i) => { await new Promise((r) => setTimeout(r, i?.ms ?? 100)); return { tag: i?.tag ?? null }; },
  deep: async (i) => nest(i?.depth ?? 10),
  wait: async (i) => ({ harnessWait: i }),
};
export function tool(name, core = false) {
  const t = { name, label: name, description: "tool " + name, parameters: { type: "object", properties: {} },
    execute: async (_id, input) => { invoked.push(name); return jsonResult(await behave[name](input ?? {})); } };
  if (!core) s.setPluginToolMeta(t, { pluginId: "fx", optional: false });
  return t;
}
// run: OpenClaw's run setup for one run, as the agent does it.
// hooked: pass OpenClaw's tool hook context, as its run setup does (before_tool_call hooks run).
export function run(runId, tools, codeMode = { enabled: true }, ident = {}, hooked = false) {
  const config = { tools: { codeMode } };
  const catalogRef = s.createToolSearchCatalogRef();
  const id = { agentId: "a", sessionId: "s", sessionKey: "agent:a:s", runId, ...ident };
  const ctx = { config, runtimeConfig: config, ...id, catalogRef, abortSignal: new AbortController().signal,
    executeTool: async (c) => c.tool.execute(c.toolCallId, c.input, c.signal, c.onUpdate) };
  const ctl = s.createCodeModeTools(ctx);
  const hookCtx = hooked ? { agentId: id.agentId, config, sessionKey: id.sessionKey, sessionId: id.sessionId, runId } : undefined;
  s.applyCodeModeCatalog({ config, ...id, catalogRef, tools: [...ctl, ...tools], ...(hooked ? { toolHookContext: hookCtx } : {}) });
  const [exec, wait] = s.toToolDefinitions(ctl, hookCtx); // a throw becomes {status: "error"}, as in the agent loop
  return { exec, wait };
}
export async function cell(r, code, maxWaits = 20) {
  const t0 = Date.now();
  let res = (await r.exec.execute("c-" + Math.random(), { code })).details;
  let waits = 0;
  while (res?.status === "waiting" && waits < maxWaits) { waits++; res = (await r.wait.execute("w-" + waits + "-" + Math.random(), { runId: res.runId })).details; }
  const { telemetry, ...rest } = res ?? {};
  if (typeof rest.error === "string" && rest.error.length > 300) rest.error = `${rest.error.slice(0, 120)}… (${rest.error.length} characters)`;
  return { ...rest, waits, ms: Date.now() - t0 };
}
export const show = (name, x) => console.log(`== ${name}\n${JSON.stringify(x).slice(0, 1500)}`);
export const pre = `const id = (n) => ALL_TOOLS.find((t) => t.name === n).id;\nconst val = (x) => x && x.result && "details" in x.result ? x.result.details : x;\n`;

