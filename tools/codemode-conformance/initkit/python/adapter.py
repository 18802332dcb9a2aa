#!/usr/bin/env python3
"""A minimal code mode adapter speaking the driver protocol of codemode-conformance
(spec/protocol.md): JSON-RPC 2.0, one JSON object per line on stdin/stdout.
Written by `codemode-conformance init --lang python`. Replace the runtime_unavailable
answers with calls into your implementation; docs/implementers.md walks through it.
stdout carries protocol messages only: log to sys.stderr."""
import json
import sys

runs = {}  # run id -> run.prepare params


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def runtime_unavailable(_params):
    # spec/protocol.md §4: a failed result {status, error, code, telemetry}.
    return {"status": "failed", "code": "runtime_unavailable", "error": "no runtime behind this adapter yet",
            "telemetry": {"catalogSize": 0, "execCount": 0, "waitCount": 0, "searchCount": 0, "describeCount": 0, "callCount": 0, "durationMs": 0}}


def initialize(_params):
    # core only: declare optional features (§9) as you implement them.
    return {"protocolVersion": "1", "implementation": {"name": "my-code-mode", "version": "0.0.1"}, "features": []}


def prepare(p):
    runs[p["run"]] = p
    code_mode = p.get("codeMode")  # the raw tools.codeMode value: any JSON (§5.1)
    if not (isinstance(code_mode, dict) and code_mode.get("enabled") is True):
        tools = [{"name": t["name"], "description": t.get("description", ""),
                  "inputSchema": t.get("parameters") or {"type": "object", "properties": {}}} for t in p.get("tools") or []]
        return {"run": p["run"], "codeModeActive": False, "tools": tools}
    return {"run": p["run"], "codeModeActive": False, "tools": [],
            "failure": {"code": "runtime_unavailable", "error": "no runtime behind this adapter yet"}}


def end(p):
    runs.pop(p.get("run"), None)
    return {}


METHODS = {
    "initialize": initialize,
    "run.prepare": prepare,
    "tool.exec": runtime_unavailable,
    "tool.wait": runtime_unavailable,
    "run.abort": lambda p: {},
    "run.end": end,
    "runtime.stats": lambda p: {"liveVMs": 0, "snapshots": 0, "snapshotBytes": 0, "suspendedRuns": 0, "runs": len(runs)},
    "shutdown": lambda p: {},
}

for line in sys.stdin:  # spec/protocol.md §2: the loop ends, and the adapter exits, at EOF
    if not line.strip():
        continue
    try:
        msg = json.loads(line)
    except ValueError:
        send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}})
        continue
    if "id" not in msg or "method" not in msg:
        continue  # a notification or a response
    fn = METHODS.get(msg["method"])
    if fn is None:
        send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "method not found: " + msg["method"]}})
        continue
    try:
        send({"jsonrpc": "2.0", "id": msg["id"], "result": fn(msg.get("params") or {})})
    except Exception as e:  # a bug in a handler answers -32603, it never kills the adapter
        send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32603, "message": "internal error: %s" % e}})
