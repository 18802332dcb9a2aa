// JSON-RPC 2.0 over newline-delimited JSON (spec/protocol.md §1): both sides
// send requests; incoming lines are classified by their members. Handlers run
// concurrently; each reply is written as one line.

import readline from "node:readline";

export class Peer {
  constructor(input, output, log) {
    this.input = input;
    this.output = output;
    this.log = log ?? (() => {});
    this.nextId = 1;
    this.pending = new Map();
    this.handle = async () => {
      throw Object.assign(new Error("no handler"), { code: -32601 });
    };
    this.onEnd = () => {};
    this.inFlight = 0;
    this.ended = false;
  }

  start() {
    const rl = readline.createInterface({ input: this.input, crlfDelay: Infinity });
    rl.on("line", (line) => this.#line(line));
    // EOF: finish the requests already read, then end.
    rl.on("close", () => {
      this.ended = true;
      if (this.inFlight === 0) this.onEnd();
    });
  }

  #send(msg) {
    this.output.write(JSON.stringify(msg) + "\n");
  }

  #line(line) {
    if (line.trim() === "") return;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      this.#send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
      return;
    }
    if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
      this.#send({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "invalid request" } });
      return;
    }
    if (typeof msg.method === "string") {
      if (!("id" in msg)) return; // notifications from the harness: none defined
      this.inFlight++;
      Promise.resolve()
        .then(() => this.handle(msg.method, msg.params))
        .then(
          (result) => this.#send({ jsonrpc: "2.0", id: msg.id, result: result === undefined ? null : result }),
          (err) => {
            const code = Number.isInteger(err?.code) ? err.code : -32603;
            if (code === -32603) this.log(`internal error in ${msg.method}: ${err?.stack ?? err}`);
            this.#send({ jsonrpc: "2.0", id: msg.id, error: { code, message: String(err?.message ?? err) } });
          },
        )
        .finally(() => {
          this.inFlight--;
          if (this.ended && this.inFlight === 0) this.onEnd();
        });
      return;
    }
    if ("result" in msg || "error" in msg) {
      const p = this.pending.get(msg.id);
      if (!p) return; // late or unknown: dropped
      this.pending.delete(msg.id);
      p.resolve(msg);
      return;
    }
    // Neither a request nor a response (e.g. {}): JSON-RPC 2.0 says -32600.
    this.#send({ jsonrpc: "2.0", id: msg.id ?? null, error: { code: -32600, message: "invalid request" } });
  }

  // request sends a request and resolves with the response message
  // ({result} or {error}). When signal aborts first, onAbort runs and the
  // promise rejects; a late answer is then dropped.
  request(method, params, signal, onAbort) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const abort = () => {
        if (!this.pending.has(id)) return;
        this.pending.delete(id);
        onAbort?.();
        reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
      };
      this.pending.set(id, {
        resolve: (m) => {
          signal?.removeEventListener("abort", abort);
          resolve(m);
        },
      });
      this.#send({ jsonrpc: "2.0", id, method, params });
      if (signal?.aborted) abort();
      else signal?.addEventListener("abort", abort, { once: true });
    });
  }

  notify(method, params) {
    this.#send({ jsonrpc: "2.0", method, params });
  }
}
