#!/usr/bin/env node
// A minimal code mode adapter speaking the driver protocol of codemode-conformance
// (spec/protocol.md): JSON-RPC 2.0, one JSON object per line on stdin/stdout.
// Written by `codemode-conformance init --lang node`. Replace the runtime_unavailable
// answers with calls into your implementation; docs/implementers.md walks through it.
// stdout carries protocol messages only: log with console.error.
import { createInterface } from "node:readline";

const runs = new Map(); // run id -> run.prepare params

function send(msg) {
  process.stdout.write(JSON.stringify(msg) + "\n");
}

function runtimeUnavailable() {
  // spec/protocol.md §4: a failed result {status, error, code, telemetry}.
  return { status: "failed", code: "runtime_unavailable", error: "no runtime behind this adapter yet",
    telemetry: { catalogSize: 0, execCount: 0, waitCount: 0, searchCount: 0, describeCount: 0, callCount: 0, durationMs: 0 } };
}

const methods = {
  initialize: () => ({
    protocolVersion: "1",
    implementation: { name: "my-code-mode", version: "0.0.1" },
    features: [], // core only: declare optional features (§9) as you implement them
  }),
  "run.prepare": (p) => {
    runs.set(p.run, p);
    // codeMode is the raw tools.codeMode value: any JSON (§5.1).
    const enabled = p.codeMode !== null && typeof p.codeMode === "object" && p.codeMode.enabled === true;
    if (!enabled) {
      const tools = (p.tools || []).map((t) => ({ name: t.name, description: t.description,
        inputSchema: t.parameters || { type: "object", properties: {} } }));
      return { run: p.run, codeModeActive: false, tools };
    }
    return { run: p.run, codeModeActive: false, tools: [], failure: { code: "runtime_unavailable", error: "no runtime behind this adapter yet" } };
  },
  "tool.exec": () => runtimeUnavailable(),
  "tool.wait": () => runtimeUnavailable(),
  "run.abort": () => ({}),
  "run.end": (p) => { runs.delete(p.run); return {}; },
  "runtime.stats": () => ({ liveVMs: 0, snapshots: 0, snapshotBytes: 0, suspendedRuns: 0, runs: runs.size }),
  shutdown: () => ({}),
};

const rl = createInterface({ input: process.stdin });
rl.on("line", (line) => {
  if (!line.trim()) return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
    return;
  }
  if (msg.id === undefined || msg.method === undefined) return; // a notification or a response
  const fn = methods[msg.method];
  if (!fn) {
    send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: `method not found: ${msg.method}` } });
    return;
  }
  try {
    send({ jsonrpc: "2.0", id: msg.id, result: fn(msg.params || {}) });
  } catch (e) {
    // a bug in a handler answers -32603, it never kills the adapter
    send({ jsonrpc: "2.0", id: msg.id, error: { code: -32603, message: `internal error: ${e}` } });
  }
});
rl.on("close", () => process.exit(0)); // spec/protocol.md §2: exit at EOF on stdin
