// JSON-RPC 2.0 over newline-delimited JSON (spec/protocol.md §1): both sides
// send requests; incoming lines are classified by their members. Handlers run
// concurrently; each reply is written as one line. Lines are bounded
// (maxMessageBytes, default 16 MiB): a longer one is read to its end without
// being kept and answered -32011 with the id its first 4 KiB show.

import { checkEnvelope, peekId } from "./envelope.mjs";

// DEFAULT_MAX_MESSAGE_BYTES is the protocol's default line bound (§1).
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const HEAD_BYTES = 4096;
const NEWLINE = 0x0a;

export class Peer {
  constructor(input, output, log, maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES) {
    this.input = input;
    this.output = output;
    this.log = log ?? (() => {});
    this.maxMessageBytes = maxMessageBytes;
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
    // The current line: its chunks while it is within the bound; past it,
    // only its first HEAD_BYTES (to find the id) and its size.
    let parts = [];
    let size = 0;
    let head = null;
    const endLine = () => {
      if (head !== null) this.#oversized(head, size);
      else this.#line(Buffer.concat(parts, size).toString("utf8").replace(/\r$/, ""));
      parts = [];
      size = 0;
      head = null;
    };
    this.input.on("data", (chunk) => {
      let at = 0;
      while (at < chunk.length) {
        const nl = chunk.indexOf(NEWLINE, at);
        const piece = chunk.subarray(at, nl < 0 ? chunk.length : nl);
        size += piece.length;
        if (head === null && size > this.maxMessageBytes) {
          head = Buffer.concat([...parts, piece]).subarray(0, HEAD_BYTES);
          parts = [];
        } else if (head === null) parts.push(Buffer.from(piece));
        if (nl < 0) break;
        endLine();
        at = nl + 1;
      }
    });
    // EOF: finish the requests already read, then end.
    this.input.on("end", () => {
      if (size > 0 || head !== null) endLine();
      this.ended = true;
      if (this.inFlight === 0) this.onEnd();
    });
  }

  // #oversized answers a line over maxMessageBytes with -32011 (§1), with
  // the id its head shows when it is a request; an oversized response to
  // one of our requests fails that request.
  #oversized(head, size) {
    const { id, response } = peekId(head.toString("utf8"));
    const error = { code: -32011, message: `message too large: ${size} bytes, the maximum is ${this.maxMessageBytes}`, data: { limit: this.maxMessageBytes, size } };
    if (response) {
      const p = id === undefined ? undefined : this.pending.get(id);
      if (p) {
        this.pending.delete(id);
        p.resolve({ jsonrpc: "2.0", id, error });
      }
      return;
    }
    this.#send({ jsonrpc: "2.0", id: id ?? null, error });
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
    const bad = checkEnvelope(msg);
    if (bad) {
      // A malformed response is never answered (§1); it fails the request
      // it names.
      if (bad.response) {
        const p = this.pending.get(bad.id);
        if (p) {
          this.pending.delete(bad.id);
          p.resolve({ jsonrpc: "2.0", id: bad.id, error: { code: -32600, message: `malformed response: ${bad.message}` } });
        }
        return;
      }
      this.#send({ jsonrpc: "2.0", id: bad.id ?? null, error: { code: -32600, message: `invalid request: ${bad.message}` } });
      return;
    }
    if (typeof msg.method === "string") {
      if (!("id" in msg)) {
        this.onNotify?.(msg.method, msg.params); // tool.update (feature streaming)
        return;
      }
      this.inFlight++;
      Promise.resolve()
        .then(() => this.handle(msg.method, msg.params))
        .then(
          (result) => this.#send({ jsonrpc: "2.0", id: msg.id, result: result === undefined ? null : result }),
          (err) => {
            // Only a JSON-RPC code (the adapters' ProtocolError) is an answer's
            // code; another error's numeric code (a DOMException's legacy code,
            // 20 for AbortError) is an internal error of the adapter.
            const code = Number.isInteger(err?.code) && err.code >= -32768 && err.code <= -32000 ? err.code : -32603;
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
