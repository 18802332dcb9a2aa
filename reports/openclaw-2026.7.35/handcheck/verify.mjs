// Hand check of OpenClaw 2026.7.35 findings, straight on its code-mode module (no harness, no adapter).
import path from "node:path";
import { pathToFileURL } from "node:url";
import { discoverChunks, loadSurface } from "../../../targets/openclaw/lib/chunks.mjs";
const dist = process.env.OPENCLAW_DIST ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(process.env.HOME, ".cache"), "codemode-conformance/openclaw-2026.7.35/node_modules/openclaw/dist");
const s = await loadSurface(discoverChunks(dist), (f) => import(pathToFileURL(path.join(dist, f)).href));
const log = [];
let answered = null;
const echo = { name: "echo", label: "echo", description: "echo", parameters: { type: "object", properties: {} },
  execute: async (id, input) => { log.push({ at: answered ? "AFTER final answer" : "before final answer", input }); return { content: [{ type: "text", text: JSON.stringify(input) }], details: input }; } };
async function cell(code, cm = { enabled: true }) {
  const config = { tools: { codeMode: cm } };
  const catalogRef = s.createToolSearchCatalogRef();
  const runId = "r" + Math.random();
  const ctx = { config, runtimeConfig: config, agentId: "a", sessionId: "s", sessionKey: "k", runId, catalogRef, abortSignal: new AbortController().signal,
    executeTool: async (c) => c.tool.execute(c.toolCallId, c.input, c.signal) };
  const cmTools = s.createCodeModeTools(ctx);
  s.applyCodeModeCatalog({ config, agentId: "a", sessionId: "s", sessionKey: "k", runId, catalogRef, tools: [...cmTools, echo] });
  const [exec, wait] = s.toToolDefinitions(cmTools);
  answered = null; log.length = 0;
  let r = (await exec.execute("c1", { code }, undefined)).details;
  for (let i = 0; r?.status === "waiting" && i < 20; i++) r = (await wait.execute("w" + i, { runId: r.runId }, undefined)).details;
  answered = true;
  await new Promise((res) => setTimeout(res, 1500));
  return { result: r, calls: log.slice() };
}
const pre = `const id = (n) => ALL_TOOLS.find((t) => t.name === n).id;\n`;
const show = (name, x) => console.log("== " + name + "\n" + JSON.stringify(x, (k, v) => k === "telemetry" ? undefined : v));
show("CM-SEC-01 globals", await cell(`return Object.getOwnPropertyNames(globalThis).filter(k => k.startsWith("__openclaw")).map(k => k + ":" + typeof globalThis[k])`));
show("CM-NEST-23 after return", await cell(pre + `Promise.resolve().then(() => tools.call(id("echo"), {late: true}).catch(() => {})); return "ok";`));
show("CM-NEST-23 after throw", await cell(pre + `tools.call(id("echo"), {late: "throw"}).catch(() => {}); throw new Error("x");`));
show("CM-SEC-04 BigInt.asUintN", await cell(`return [BigInt.asUintN(64, -1n), BigInt.asUintN(128, -(2n ** 127n))].map(String)`));
show("CM-LIM-01 getter in output", await cell(`return {get x() { for (;;) {} }};`, { enabled: true, timeoutMs: 1000 }));
show("CM-LIM-10 5000-deep value", await cell(`let x = []; for (let i = 1; i < 5000; i++) x = [x]; return x;`, { enabled: true, timeoutMs: 5000 }));
process.exit(0);
