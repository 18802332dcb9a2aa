#!/usr/bin/env python3
"""A tiny driver-protocol adapter for the smoke specs: argv[1] picks one typical
mistake (ok, pollution, no-newline, id-not-echoed, unknown-feature, crash).
Every cell fails runtime_unavailable (spec/protocol.md §3-§4)."""
import json
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "ok"


def send(msg, newline=True):
    sys.stdout.write(json.dumps(msg) + ("\n" if newline else ""))
    sys.stdout.flush()


if mode == "crash":
    sys.stderr.write("adapter.py: cannot load config: No such file or directory\n")
    sys.exit(3)
if mode == "pollution":
    print("starting adapter v0.0.1")
    sys.stdout.flush()

for line in sys.stdin:
    req = json.loads(line)
    method, rid, params = req.get("method"), req.get("id"), req.get("params") or {}
    if rid is None:
        continue
    if mode == "id-not-echoed":
        rid = str(rid) + "x"
    if method == "initialize":
        feats = ["not-a-feature"] if mode == "unknown-feature" else []
        res = {"protocolVersion": "1", "implementation": {"name": "smoke-fake", "version": "0"}, "features": feats}
    elif method == "run.prepare":
        res = {"run": params.get("run"), "codeModeActive": True, "tools": []}
    elif method in ("tool.exec", "tool.wait"):
        res = {"status": "failed", "code": "runtime_unavailable", "error": "no engine", "telemetry": {}}
    else:
        res = {}
    send({"jsonrpc": "2.0", "id": rid, "result": res}, newline=(mode != "no-newline"))
