// The JSON-RPC 2.0 envelope rules of spec/protocol.md §1, for the adapter's
// side of the wire: which parsed lines are malformed (-32600), and the id of
// an oversized line read from its first bytes only.

const MEMBERS = new Set(["jsonrpc", "id", "method", "params", "result", "error"]);

function validId(v) {
  return typeof v === "string" || (typeof v === "number" && Number.isFinite(v)) || v === null;
}

// checkEnvelope returns null for a well-formed message object, else
// {id, response, message}: id is the message's id when it could be read
// (else undefined, answered as null), response whether it was meant as a
// response (never answered), message what is wrong.
export function checkEnvelope(msg) {
  if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
    const what = Array.isArray(msg) ? "a JSON object (batches are not used, spec/protocol.md §1)" : "a JSON object";
    return { message: `a message must be ${what}` };
  }
  const idOk = !("id" in msg) || validId(msg.id);
  const id = idOk && msg.id !== null ? msg.id : undefined;
  const response = !("method" in msg) && ("result" in msg || "error" in msg);
  const bad = (message) => ({ id, response, message });
  const extra = Object.keys(msg).filter((k) => !MEMBERS.has(k));
  if (extra.length > 0) return bad(`members ${JSON.stringify(extra.sort())} are not part of a JSON-RPC message`);
  if (msg.jsonrpc !== "2.0") return bad('jsonrpc must be "2.0"');
  if (!idOk) return bad("id must be a string, a number or null");
  if ("method" in msg) {
    if (typeof msg.method !== "string" || msg.method === "") return bad("method must be a non-empty string");
    if ("result" in msg || "error" in msg) return bad("a message is a request or a response, not both");
    if ("params" in msg && (msg.params === null || typeof msg.params !== "object")) return bad("params must be an object or an array");
    return null;
  }
  if (!("result" in msg) && !("error" in msg)) return bad("a message needs a method, a result or an error");
  if ("result" in msg && "error" in msg) return bad("a response has a result or an error, not both");
  if ("error" in msg) {
    const e = msg.error;
    if (e === null || typeof e !== "object" || !Number.isInteger(e.code) || typeof e.message !== "string") return bad("error must be {code: integer, message: string, data?}");
  }
  return null;
}

// peekId reads the top-level members of a JSON object's head (possibly cut
// off anywhere) and returns {id, response}: id when an "id" member with a
// string or number value is there in full, response when a "result" or
// "error" member comes before any "method". Members nested in params never
// count.
export function peekId(head) {
  let i = 0;
  const n = head.length;
  const ws = () => {
    while (i < n && " \t\r\n".includes(head[i])) i++;
  };
  const str = () => {
    // at '"'; returns the decoded string, or undefined when cut off
    const start = i;
    i++;
    while (i < n && head[i] !== '"') i += head[i] === "\\" ? 2 : 1;
    if (i >= n) return undefined;
    i++;
    try {
      return JSON.parse(head.slice(start, i));
    } catch {
      return undefined;
    }
  };
  const skipValue = () => {
    // skips one JSON value; false when cut off
    let depth = 0;
    while (i < n) {
      const c = head[i];
      if (c === '"') {
        if (str() === undefined) return false;
      } else if (c === "{" || c === "[") {
        depth++;
        i++;
      } else if (c === "}" || c === "]") {
        if (depth === 0) return true;
        depth--;
        i++;
      } else if (c === "," && depth === 0) return true;
      else i++;
      if (depth === 0 && (c === '"' || c === "}" || c === "]")) return true;
    }
    return false;
  };
  const out = { id: undefined, response: false };
  let sawMethod = false;
  ws();
  if (head[i] !== "{") return out;
  i++;
  for (;;) {
    ws();
    if (head[i] !== '"') return out;
    const key = str();
    if (key === undefined) return out;
    ws();
    if (head[i] !== ":") return out;
    i++;
    ws();
    if (key === "id") {
      const m = /^(?:"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?=\s*[,}])/.exec(head.slice(i));
      if (m) out.id = JSON.parse(m[0]);
    }
    if (key === "method") sawMethod = true;
    if ((key === "result" || key === "error") && !sawMethod) out.response = true;
    if (!skipValue()) return out;
    ws();
    if (head[i] !== ",") return out;
    i++;
  }
}
