// naive: a deliberately naive code mode target in Node.js, kept as a test asset.
//
// What it is: a plausible first attempt at code mode written from
// spec/protocol.md alone. It speaks the driver protocol (JSON-RPC 2.0 NDJSON
// on stdio: initialize, run.prepare, tool.exec, tool.wait, run.abort, run.end,
// runtime.stats, shutdown; it sends tool.invoke and tool.cancel), and runs
// guest code in Node's `vm` module. Only Node's standard library (Node >= 20).
// Run it: `codemode-conformance run --target "exec:node fakes/naive/target.mjs"`.
//
// It is the second implementation every verdict of the harness is checked
// against (issue 7 §2): where it is honestly right the specs should pass, and
// where the design below is wrong they must fail the right requirement.
// Nothing here emulates a fault; the faults are real consequences of the
// design, which is deliberately naive:
//
//  1. `vm` is not a security boundary. The context's global object forwards
//     to a host object, so `this.constructor.constructor("return process")()`
//     returns the host's `process`: the guest can read files, spawn
//     processes, read the environment, and write its own JSON-RPC lines on
//     process.stdout (e.g. a forged tool.invoke for a tool the run's policy
//     denies). Violates CM-SEC-01, and through it CM-GUEST-05, CM-SEC-05,
//     CM-ACT-05.
//  2. Host values leak into the guest realm: `tools`, its functions, `text`,
//     `json`, `ALL_TOOLS` and every promise returned by `tools.*` belong to
//     the host realm, so `tools.call(...).constructor.constructor` and
//     `text.constructor` are the host's Function (CM-SEC-02). Tool results,
//     tool errors and describe/search entries are rebuilt in the guest realm.
//  3. No snapshots. A waiting cell is its context and its pending promise,
//     kept alive in memory; it even goes on running while "suspended" when a
//     nested result arrives. runtime.stats reports made-up numbers: liveVMs
//     counts only running cells, snapshotBytes is a fixed estimate per
//     waiting cell (CM-RUN-01, CM-EXEC-08; maxSnapshotBytes is checked
//     against that estimate, CM-RUN-04).
//  4. Guest code runs on the protocol loop. The vm timeout only covers the
//     synchronous start of a cell; code after an `await`, and promise jobs,
//     run on the host's microtask queue with no limit. `await x; for(;;){}`
//     or an endless chain of promise jobs hangs the whole target: no more
//     requests are read or answered (CM-LIM-01). Even the synchronous start
//     is not always interruptible: a builtin that never checks for
//     interrupts (sorting an array of length 2^32-1) hangs it too
//     (CM-SEC-04). The endless promise chain also grows the heap until
//     fault 5 kills the process, about a minute later.
//  5. No memory limit: memoryLimitBytes is ignored (CM-LIM-02). So that a
//     runaway guest cannot thrash the machine, the process caps its own V8
//     heap (it re-executes itself with --max-old-space-size); hitting the cap
//     kills the whole target, with every run in it.
//  6. Helpers are installed for every safe name that is not an Object
//     prototype member, search/describe/call or a collision; `then` and
//     `toJSON` are not excluded (this first attempt predates protocol.md
//     §12, which names them), so a tool named `then` makes `tools` a
//     thenable (CM-CAT-06).
//  7. TypeScript is not supported: language "typescript" fails with
//     unsupported_language, and the feature is not declared.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import vm from "node:vm";
import v8 from "node:v8";
import os from "node:os";

// Fault 5: cap the heap. A runaway guest then crashes this process within
// seconds instead of growing to the default (several GB) limit.
const HEAP_CAP_MB = 384;
if (v8.getHeapStatistics().heap_size_limit > 2 * HEAP_CAP_MB * 1024 * 1024) {
  const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_CAP_MB}`, ...process.execArgv, ...process.argv.slice(1)], { stdio: "inherit" });
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(sig, () => child.kill(sig));
  // Exit as the child did (a signal as the shell reports it: 128 + its number).
  child.on("exit", (code, signal) => process.exit(code ?? 128 + (os.constants.signals[signal] || 0)));
} else {
  main();
}

function main() {
  const IMPLEMENTATION = { name: "naive-node-vm", version: "0.1.0+node" + process.versions.node };
  // It claims snapshot-executor and isolation, as a generation-1 runtime
  // would: its node:vm escape and its made-up snapshots are what the specs of
  // those features must catch.
  // With --core-only (naive.CoreOnly) it declares core alone, as a target
  // that simply leaves its optional-looking features out: profile v1
  // requires isolation, snapshot-executor and pending-call-limit, so their
  // specs must still run and catch the same faults, never skip (§9). It then
  // does not keep maxPendingToolCalls either (it starts every nested call the
  // guest makes): a target without the pending-call-limit feature has no
  // reason to, and CM-LIM-05 must fail on what it did, not pass on a limit it
  // keeps without declaring it (issue 23 acceptance).
  const CORE_ONLY = process.argv.includes("--core-only");
  const FEATURES = CORE_ONLY ? ["core"]
    : ["core", "yield", "shell-exec", "telemetry", "snapshot-executor", "isolation", "fault-injection", "pending-call-limit", "tools-api"];
  const MAX_SUSPENDED = 64;
  // Fault 3: there is no snapshot, so its size is a guess.
  const ESTIMATED_SNAPSHOT_BYTES = 256 * 1024;
  const CONTROL_TOOLS = new Set(["exec", "wait", "tool_search_code", "tool_search", "tool_describe", "tool_call"]);
  const LIMIT_CODES = new Set(["timeout", "memory_limit_exceeded", "output_limit_exceeded", "snapshot_limit_exceeded", "too_many_pending_tool_calls"]);

  // A guest that rejects a promise nobody handles must not kill the target.
  process.on("unhandledRejection", (e) => log("unhandled rejection in a cell:", describeThrown(e)));

  function log(...args) { process.stderr.write("naive: " + args.join(" ") + "\n"); }

  // ---- wire ---------------------------------------------------------------

  function send(msg) { process.stdout.write(JSON.stringify(msg) + "\n"); }
  function reply(id, result) { send({ jsonrpc: "2.0", id, result }); }
  function replyError(id, code, message) { send({ jsonrpc: "2.0", id, error: { code, message } }); }

  class RPCError extends Error {
    constructor(code, message) { super(message); this.rpcCode = code; }
  }

  let nextInvokeId = 1;
  const outstanding = new Map(); // our tool.invoke id -> {resolve, reject}

  function invoke(params) {
    const id = nextInvokeId++;
    return new Promise((resolve, reject) => {
      outstanding.set(id, { resolve, reject });
      send({ jsonrpc: "2.0", id, method: "tool.invoke", params });
    });
  }

  const methods = {
    "initialize": initialize,
    "run.prepare": prepare,
    "tool.exec": (p) => toolCall(p, "exec"),
    "tool.wait": (p) => toolCall(p, "wait"),
    "run.abort": (p) => { abortRun(mustRun(p), "aborted"); return true; },
    "run.end": (p) => { const r = mustRun(p); abortRun(r, "ended"); runs.delete(r.id); return true; },
    "runtime.stats": stats,
    "shutdown": () => { setImmediate(() => process.exit(0)); return true; },
  };

  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  rl.on("line", (line) => {
    if (line.trim() === "") return;
    let msg;
    try { msg = JSON.parse(line); } catch (e) { replyError(null, -32700, "parse error: " + e.message); return; }
    if (msg === null || typeof msg !== "object" || Array.isArray(msg)) { replyError(null, -32600, "not a JSON-RPC object"); return; }
    if (typeof msg.method === "string") {
      handle(msg);
    } else if ("result" in msg || "error" in msg) {
      const o = outstanding.get(msg.id);
      if (!o) return; // a response to nothing we asked: dropped
      outstanding.delete(msg.id);
      if (msg.error) o.reject(msg.error); else o.resolve(msg.result);
    }
  });
  rl.on("close", () => process.exit(0));

  async function handle(msg) {
    const isNotification = !("id" in msg);
    const fn = Object.prototype.hasOwnProperty.call(methods, msg.method) ? methods[msg.method] : null;
    if (!fn) {
      if (!isNotification) replyError(msg.id, -32601, `method ${JSON.stringify(msg.method)} not found`);
      return;
    }
    try {
      const result = await fn(msg.params === undefined ? {} : msg.params);
      if (!isNotification) reply(msg.id, result);
    } catch (e) {
      if (isNotification) return;
      if (e instanceof RPCError) replyError(msg.id, e.rpcCode, e.message);
      else { log("internal error:", e && e.stack); replyError(msg.id, -32603, "internal error: " + (e && e.message)); }
    }
  }

  // ---- initialize ---------------------------------------------------------

  function initialize(p) {
    if (!p || p.protocolVersion !== "1") throw new RPCError(-32602, `unsupported protocolVersion ${JSON.stringify(p && p.protocolVersion)} (only "1")`);
    return { protocolVersion: "1", implementation: IMPLEMENTATION, features: FEATURES };
  }

  // ---- configuration (protocol.md §5.1) -------------------------------------

  const NUMERIC = {
    timeoutMs: [10000, 100, 60000],
    memoryLimitBytes: [67108864, 1048576, 1073741824],
    maxOutputBytes: [65536, 1024, 10485760],
    maxSnapshotBytes: [10485760, 1024, 268435456],
    maxPendingToolCalls: [16, 1, 128],
    snapshotTtlSeconds: [900, 1, 86400],
    searchDefaultLimit: [8, 1, Infinity],
    maxSearchLimit: [50, 1, 50],
  };

  // resolveConfig returns {enabled:false}, {invalid: message} or the effective config.
  function resolveConfig(raw) {
    if (raw === true) raw = { enabled: true };
    if (raw === null || typeof raw !== "object" || Array.isArray(raw) || raw.enabled !== true) return { enabled: false };
    const c = { enabled: true, runtime: "quickjs-wasi", mode: "only", languages: ["javascript", "typescript"] };
    if ("runtime" in raw && raw.runtime !== "quickjs-wasi") return { invalid: `invalid tools.codeMode.runtime: ${JSON.stringify(raw.runtime)} is not supported (only "quickjs-wasi")` };
    if ("mode" in raw && raw.mode !== "only") return { invalid: `invalid tools.codeMode.mode: ${JSON.stringify(raw.mode)} (only "only")` };
    if ("languages" in raw) {
      const l = raw.languages;
      if (!Array.isArray(l) || l.length === 0 || !l.every((x) => x === "javascript" || x === "typescript")) {
        return { invalid: `invalid tools.codeMode.languages: ${JSON.stringify(l)} (a non-empty list of "javascript"/"typescript")` };
      }
      c.languages = [...new Set(l)];
    }
    for (const [k, [def, lo, hi]] of Object.entries(NUMERIC)) {
      const v = raw[k];
      c[k] = typeof v === "number" && Number.isInteger(v) && v > 0 ? Math.min(Math.max(v, lo), hi) : def;
    }
    c.searchDefaultLimit = Math.min(c.searchDefaultLimit, c.maxSearchLimit);
    return c;
  }

  // ---- runs and the catalog (§5.2-5.4) ---------------------------------------

  const runs = new Map(); // run id -> Run
  const cells = new Map(); // runId (cm_…) -> Cell, process-wide

  function mustRun(p) {
    const r = p && typeof p.run === "string" ? runs.get(p.run) : undefined;
    if (!r) throw new RPCError(-32001, `unknown run ${JSON.stringify(p && p.run)}`);
    return r;
  }

  function policyMatches(entry, t) {
    return entry === t.name || entry === t.owner || entry === `${t.source}:${t.owner}` || entry === `${t.source}:${t.owner}:${t.name}`;
  }

  function effectiveTools(p) {
    if (p.raw === true || p.disableTools === true) return [];
    const pol = p.policy || {};
    return p.tools.filter((t) => {
      if (Array.isArray(pol.allow) && !pol.allow.some((e) => policyMatches(e, t))) return false;
      if (Array.isArray(pol.deny) && pol.deny.some((e) => policyMatches(e, t))) return false;
      return true;
    });
  }

  function buildCatalog(eff) {
    const entries = eff.filter((t) => !CONTROL_TOOLS.has(t.name) || (t.name === "exec" && t.source === "openclaw" && t.owner === "core"));
    const key = (t) => Buffer.from(`${t.source}\u0000${t.owner}\u0000${t.name}`);
    const sorted = entries.map((t, i) => ({ t, i })).sort((a, b) => Buffer.compare(key(a.t), key(b.t)) || a.i - b.i).map((x) => x.t);
    const seen = new Map();
    return sorted.map((t) => {
      const base = `${t.source}:${t.owner}:${t.name}`;
      const n = (seen.get(base) || 0) + 1;
      seen.set(base, n);
      const e = { id: n === 1 ? base : `${base}~${n}`, name: t.name, description: t.description || "", source: t.source, owner: t.owner, parameters: t.parameters };
      if (t.label) e.label = t.label;
      if (t.source !== "openclaw") e.sourceName = t.owner;
      return e;
    });
  }

  function compact(e) {
    const c = { id: e.id, name: e.name };
    if (e.label) c.label = e.label;
    c.description = e.description;
    c.source = e.source;
    if (e.sourceName) c.sourceName = e.sourceName;
    return c;
  }

  function execDescription(c) {
    return "Run a JavaScript program in a sandbox. The code is the body of an async function: top-level await and return are allowed, " +
      "and the final return value becomes value in the result. Globals: ALL_TOOLS (compact catalog entries {id, name, description, source}), " +
      "tools.search(query, {limit}) (ranked entries), tools.describe(id) (entry plus its parameters schema), tools.call(id, input) (runs a tool), " +
      "tools.<name>(input) helpers, text(value) and json(value) (output), yield_control(reason) (suspend). When nested calls are slow the result " +
      "is waiting with a runId: call wait({runId}) to continue. Limits: timeoutMs " + c.timeoutMs + " ms per exec or wait call, memoryLimitBytes " +
      c.memoryLimitBytes + ", maxOutputBytes " + c.maxOutputBytes + ", maxPendingToolCalls " + c.maxPendingToolCalls + ", snapshotTtlSeconds " +
      c.snapshotTtlSeconds + ". import and require are not available.";
  }

  function prepare(p) {
    if (!p || typeof p.run !== "string" || p.run === "") throw new RPCError(-32602, "run must be a non-empty string");
    if (runs.has(p.run)) throw new RPCError(-32602, `run ${JSON.stringify(p.run)} is already prepared`);
    for (const k of ["agentId", "sessionId", "sessionKey", "senderId", "channel"]) {
      if (typeof p[k] !== "string" || p[k] === "") throw new RPCError(-32602, `${k} must be a non-empty string`);
    }
    if (!Array.isArray(p.tools)) throw new RPCError(-32602, "tools must be an array");
    for (const t of p.tools) {
      if (!t || typeof t.name !== "string" || !t.name || typeof t.owner !== "string" || !t.owner || !["openclaw", "plugin", "mcp", "client"].includes(t.source)) {
        throw new RPCError(-32602, `bad tool ${JSON.stringify(t)}`);
      }
    }
    const cfg = resolveConfig(p.codeMode);
    if (cfg.invalid) return { run: p.run, codeModeActive: false, tools: [], failure: { code: "invalid_config", error: cfg.invalid } };
    const eff = effectiveTools(p);
    const run = {
      id: p.run, cfg, active: false, aborted: false, ended: false,
      context: { agentId: p.agentId, sessionId: p.sessionId, sessionKey: p.sessionKey, senderId: p.senderId, channel: p.channel },
      catalog: [], execCount: 0, waitCount: 0, cells: new Set(),
    };
    runs.set(p.run, run);
    if (!cfg.enabled || eff.length === 0) {
      const direct = eff.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters || { type: "object", properties: {} } }));
      return { run: p.run, codeModeActive: false, tools: direct };
    }
    if (p.faults && p.faults.runtimeUnavailable === true) {
      return { run: p.run, codeModeActive: false, tools: [], failure: { code: "runtime_unavailable", error: "the JavaScript runtime is unavailable (fault injected)" } };
    }
    run.active = true;
    run.catalog = buildCatalog(eff);
    const execSchema = {
      type: "object",
      properties: {
        code: { type: "string", description: "JavaScript program body; top-level await and return are allowed; the returned value becomes value." },
        command: { type: "string", description: "Alias of code." },
        language: { type: "string", enum: cfg.languages, default: "javascript" },
      },
      additionalProperties: false,
    };
    const waitSchema = { type: "object", properties: { runId: { type: "string", description: "runId of a waiting exec result." } }, required: ["runId"], additionalProperties: false };
    return {
      run: p.run, codeModeActive: true,
      tools: [
        { name: "exec", description: execDescription(cfg), inputSchema: execSchema },
        { name: "wait", description: "Resume a waiting code mode run: wait({runId}). Returns the same result union as exec.", inputSchema: waitSchema },
      ],
      effectiveConfig: cfg,
    };
  }

  // ---- runtime.stats (§8): fault 3, made up ----------------------------------

  function stats() {
    sweep();
    let live = 0, waiting = 0;
    for (const c of cells.values()) {
      if (c.state === "running") live++;
      else if (c.state === "waiting") waiting++;
    }
    return { liveVMs: live, snapshots: waiting, snapshotBytes: waiting * ESTIMATED_SNAPSHOT_BYTES, suspendedRuns: waiting, runs: runs.size };
  }

  // sweep drops waiting cells past their TTL.
  function sweep() {
    const now = Date.now();
    for (const c of cells.values()) {
      if (c.state === "waiting" && now >= c.expiresAt) terminate(c, "expired");
    }
  }

  // ---- exec and wait -----------------------------------------------------------

  function telemetry(run, cell, started) {
    const sources = {};
    for (const e of run.catalog) sources[e.source] = (sources[e.source] || 0) + 1;
    const t = {
      visibleTools: ["exec", "wait"], catalogSize: run.catalog.length, catalogSources: sources,
      execCount: run.execCount, waitCount: run.waitCount,
      searchCount: cell ? cell.counts.search : 0, describeCount: cell ? cell.counts.describe : 0, callCount: cell ? cell.counts.call : 0,
      durationMs: Date.now() - started,
    };
    if (cell && cell.calledToolIds.length) t.calledToolIds = [...cell.calledToolIds];
    if (cell && cell.limitFailures.length) t.limitFailures = [...cell.limitFailures];
    return t;
  }

  function failed(run, cell, started, code, error) {
    // The error text is what the model reads: bounded like other output.
    let text = String(error) || "failed";
    while (Buffer.byteLength(text) > run.cfg.maxOutputBytes) text = text.slice(0, Math.floor(text.length * 0.9));
    const r = { status: "failed", error: text };
    if (code) r.code = code;
    if (cell) {
      if (code && LIMIT_CODES.has(code) && !cell.limitFailures.includes(code)) cell.limitFailures.push(code);
      const out = takeOutput(cell);
      if (out.length) r.output = out;
    }
    r.telemetry = telemetry(run, cell, started);
    return r;
  }

  async function toolCall(p, kind) {
    const run = mustRun(p);
    if (!run.active) throw new RPCError(-32600, `code mode is not active in run ${JSON.stringify(run.id)}`);
    const started = Date.now();
    sweep();
    if (kind === "exec") run.execCount++; else run.waitCount++;
    if (run.aborted) return failed(run, null, started, "aborted", "the run was aborted");
    const input = p.input;
    if (kind === "exec") {
      if (input === null || typeof input !== "object" || Array.isArray(input)) return failed(run, null, started, "invalid_input", "exec needs an object {code}");
      const hasCode = "code" in input, hasCommand = "command" in input;
      if (hasCode && hasCommand && input.code !== input.command) return failed(run, null, started, "invalid_input", "exec got both code and command and they differ");
      const program = hasCode ? input.code : input.command;
      if (typeof program !== "string" || program === "") return failed(run, null, started, "invalid_input", "exec needs a non-empty code (or command) string");
      const lang = input.language === undefined ? "javascript" : input.language;
      if (typeof lang !== "string" || !run.cfg.languages.includes(lang)) return failed(run, null, started, "unsupported_language", `language ${JSON.stringify(lang)} is not enabled`);
      if (lang !== "javascript") return failed(run, null, started, "unsupported_language", `language ${JSON.stringify(lang)} is not supported by this runtime`);
      if (MODULE_PATTERN.test(program.replace(STRINGS_AND_COMMENTS, " "))) return failed(run, null, started, "module_access_denied", "import, require and import.meta are not available in code mode");
      const cell = startCell(run, program, p.toolCallId, started);
      return drive(cell, p.toolCallId, started);
    }
    if (input === null || typeof input !== "object" || typeof input.runId !== "string" || input.runId === "") {
      return failed(run, null, started, "invalid_input", "wait needs {runId: string} from a waiting exec result");
    }
    const cell = cells.get(input.runId);
    if (!cell) return failed(run, null, started, "invalid_input", "code mode run is unavailable or expired.");
    if (cell.run.context.sessionId !== run.context.sessionId || cell.run.context.sessionKey !== run.context.sessionKey) {
      return failed(run, null, started, "invalid_input", "code mode run belongs to a different session.");
    }
    if (cell.run !== run || cell.state !== "waiting") return failed(run, null, started, "invalid_input", "code mode run is unavailable or expired.");
    cell.state = "running";
    if (cell.yieldResolve) {
      const resolve = cell.yieldResolve;
      cell.yieldResolve = null;
      resolve(undefined);
    }
    return drive(cell, p.toolCallId, started);
  }

  // A static scan for module loading, with string literals and comments
  // blanked out first (a regular expression, not a tokenizer: a regexp
  // literal holding a quote can fool it). A dynamic import built at run time
  // (eval, Function) is caught when it runs.
  const STRINGS_AND_COMMENTS = /'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`|\/\/[^\n]*|\/\*[\s\S]*?\*\//g;
  const MODULE_PATTERN = /(?<![\w$.])(?:import\s*\(|import\s*\.\s*meta|import\s+[\w${*"']|require\s*\()/;

  let cellSeq = 0;

  // startCell creates a fresh context for one exec and starts the program.
  function startCell(run, program, parent, started) {
    const cell = {
      id: `cm_${process.pid}_${++cellSeq}`, run, parent, state: "running", started,
      counts: { search: 0, describe: 0, call: 0 }, calledToolIds: [], limitFailures: [],
      output: [], outputBytes: 0, pending: new Map(), callSeq: 0,
      done: false, value: undefined, failure: null, fatal: null, yieldResolve: null, yieldRequested: false,
      expiresAt: 0, hostErrors: new WeakSet(),
    };
    cells.set(cell.id, cell);
    run.cells.add(cell);
    const sandbox = makeGlobals(cell);
    const ctx = vm.createContext(sandbox, { name: "code mode cell " + cell.id });
    vm.runInContext("delete globalThis.WebAssembly;", ctx);
    cell.guestParse = vm.runInContext("JSON.parse", ctx);
    let script;
    try {
      script = new vm.Script("(async function () {\n" + program + "\n})()", { filename: "cell.js", lineOffset: -1 });
    } catch (e) {
      cell.done = true;
      cell.failure = { message: describeThrown(e) };
      return cell;
    }
    let promise;
    try {
      promise = script.runInContext(ctx, { timeout: run.cfg.timeoutMs });
    } catch (e) {
      cell.done = true;
      if (e && e.code === "ERR_SCRIPT_EXECUTION_TIMEOUT") cell.fatal = { code: "timeout", message: `exec exceeded timeoutMs (${run.cfg.timeoutMs} ms)` };
      else cell.failure = { message: describeThrown(e) };
      return cell;
    }
    Promise.resolve(promise).then(
      (v) => {
        if (cell.done) return;
        cell.done = true;
        try { cell.value = toJSONValue(v, 0, new Set()); } catch (e) { cell.failure = { message: describeThrown(e) }; }
      },
      (e) => {
        if (cell.done) return;
        cell.done = true;
        if (e && e.code === "ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING") cell.fatal = { code: "module_access_denied", message: "import() is not available in code mode" };
        else cell.failure = { message: describeThrown(e), code: e !== null && typeof e === "object" && cell.hostErrors.has(e) ? "nested_tool_failed" : undefined };
      },
    );
    return cell;
  }

  // drive watches a running cell for one exec or wait call until it ends,
  // suspends or runs out of time. It can only look between host events: a
  // guest that never yields the thread blocks this loop too (fault 4).
  function drive(cell, parent, started) {
    const run = cell.run;
    cell.parent = parent;
    cell.state = "running";
    const timeout = run.cfg.timeoutMs;
    const suspendAfter = Math.max(50, Math.floor(timeout / 4));
    return new Promise((resolve) => {
      const tick = () => {
        const elapsed = Date.now() - started;
        if (cell.state === "terminated") return resolve(failed(run, cell, started, cell.terminatedCode, cell.terminatedMessage));
        if (cell.fatal) return resolve(finish(cell, failed(run, cell, started, cell.fatal.code, cell.fatal.message)));
        if (cell.done && cell.pending.size === 0) {
          if (cell.failure) {
            return resolve(finish(cell, failed(run, cell, started, cell.failure.code, cell.failure.message)));
          }
          const valueJSON = JSON.stringify(cell.value === undefined ? null : cell.value);
          if (cell.outputBytes + Buffer.byteLength(valueJSON) > run.cfg.maxOutputBytes) {
            return resolve(finish(cell, failed(run, cell, started, "output_limit_exceeded", `output exceeds maxOutputBytes (${run.cfg.maxOutputBytes} bytes)`)));
          }
          const r = { status: "completed", value: JSON.parse(valueJSON) };
          const out = takeOutput(cell);
          if (out.length) r.output = out;
          r.telemetry = telemetry(run, cell, started);
          return resolve(finish(cell, r));
        }
        if (cell.yieldRequested || (cell.pending.size > 0 && elapsed >= suspendAfter)) {
          const reason = cell.yieldRequested ? "yield" : "pending_tools";
          cell.yieldRequested = false;
          return resolve(suspend(cell, reason, started));
        }
        if (elapsed >= timeout) {
          return resolve(finish(cell, failed(run, cell, started, "timeout", `exec exceeded timeoutMs (${timeout} ms)`)));
        }
        setTimeout(tick, 10);
      };
      setImmediate(tick);
    });
  }

  function suspend(cell, reason, started) {
    const run = cell.run;
    let waiting = 0;
    for (const c of cells.values()) if (c.state === "waiting") waiting++;
    if (waiting >= MAX_SUSPENDED) return finish(cell, failed(run, cell, started, undefined, "too many suspended code mode runs."));
    if (ESTIMATED_SNAPSHOT_BYTES > run.cfg.maxSnapshotBytes) {
      return finish(cell, failed(run, cell, started, "snapshot_limit_exceeded", `snapshot exceeds maxSnapshotBytes (${run.cfg.maxSnapshotBytes} bytes)`));
    }
    cell.state = "waiting";
    cell.expiresAt = Date.now() + run.cfg.snapshotTtlSeconds * 1000;
    const r = { status: "waiting", runId: cell.id, reason };
    if (cell.pending.size) r.pendingToolCalls = [...cell.pending.entries()].map(([id, p]) => ({ id, toolId: p.toolId }));
    const out = takeOutput(cell);
    if (out.length) r.output = out;
    r.telemetry = telemetry(run, cell, started);
    return r;
  }

  // finish ends a cell after its final result: outstanding nested calls are
  // cancelled and their late answers dropped.
  function finish(cell, result) {
    end(cell, "finished");
    return result;
  }

  // terminate ends a cell from outside (abort, run.end, expiry); a drive loop
  // still watching it reports the failure.
  function terminate(cell, why) {
    end(cell, "terminated");
    cell.terminatedCode = why === "aborted" ? "aborted" : undefined;
    cell.terminatedMessage = why === "aborted" ? "the run was aborted" : `the code mode run was ${why}`;
  }

  function end(cell, state) {
    cell.state = state;
    cell.done = true;
    cells.delete(cell.id);
    cell.run.cells.delete(cell);
    for (const [id, p] of cell.pending) {
      send({ jsonrpc: "2.0", method: "tool.cancel", params: { run: cell.run.id, toolCallId: id } });
      p.drop();
    }
    cell.pending.clear();
    if (cell.yieldResolve) cell.yieldResolve = null;
  }

  function abortRun(run, why) {
    run.aborted = true;
    for (const c of [...run.cells]) terminate(c, why);
  }

  function takeOutput(cell) {
    const out = cell.output;
    cell.output = [];
    return out;
  }

  // ---- the guest API, fault 2: host functions and promises in the guest -------

  function guestValue(cell, v) { return cell.guestParse(JSON.stringify(v === undefined ? null : v)); }

  function toolError(cell, fields) {
    const e = guestValue(cell, { name: "ToolError", ...fields });
    cell.hostErrors.add(e);
    return e;
  }

  function unknownTool(cell, id) {
    const sug = suggestions(cell.run, String(id));
    let message = `Unknown tool id ${JSON.stringify(String(id))}.`;
    if (sug.length) message += ` Did you mean ${sug.join(", ")}?`;
    message += " Use tools.search(query) or ALL_TOOLS to find tool ids.";
    return toolError(cell, { message, code: "invalid_input", suggestions: sug });
  }

  function guestEntries(run) { return run.catalog.filter((e) => e.source !== "mcp"); }
  function findEntry(run, id) { return guestEntries(run).find((e) => e.id === id) || null; }

  function words(s) { return String(s).toLowerCase().split(/[^a-z0-9]+/).filter(Boolean); }

  // score ranks an entry as in protocol.md §7.
  function score(e, q, qw) {
    const name = e.name.toLowerCase(), label = (e.label || "").toLowerCase(), id = e.id.toLowerCase(), desc = (e.description || "").toLowerCase();
    let s = name === q ? 20 : 0;
    for (const w of qw) {
      if (name.includes(w)) s += 3;
      if (label && label.includes(w)) s += 2;
      if (id.includes(w)) s += 2;
      if (desc.includes(w)) s += 1;
    }
    return s;
  }

  function ranked(run, query) {
    const q = String(query === undefined ? "" : query).toLowerCase();
    const qw = words(q);
    return guestEntries(run)
      .map((e) => ({ e, s: qw.length ? score(e, q, qw) : 1 }))
      .filter((x) => x.s > 0)
      .sort((a, b) => b.s - a.s || (a.e.id < b.e.id ? -1 : 1))
      .map((x) => x.e);
  }

  function suggestions(run, id) { return ranked(run, id).filter((e) => score(e, id.toLowerCase(), words(id)) > 0).slice(0, 3).map((e) => e.id); }

  function safeName(n) {
    let s = String(n).replace(/[^A-Za-z0-9_$]/g, "_");
    if (/^[0-9]/.test(s)) s = "_" + s;
    return s;
  }

  function makeGlobals(cell) {
    const run = cell.run;
    const cfg = run.cfg;
    const tools = {
      search: async (query, options) => {
        cell.counts.search++;
        let limit = cfg.searchDefaultLimit;
        const l = options !== null && typeof options === "object" ? options.limit : undefined;
        if (typeof l === "number" && Number.isInteger(l) && l > 0) limit = l;
        limit = Math.min(limit, cfg.maxSearchLimit);
        return guestValue(cell, ranked(run, query).slice(0, limit).map(compact));
      },
      describe: async (id) => {
        cell.counts.describe++;
        const e = findEntry(run, id);
        if (!e) throw unknownTool(cell, id);
        return guestValue(cell, { ...compact(e), parameters: e.parameters === undefined ? { type: "object", properties: {} } : e.parameters });
      },
      call: async (id, input) => {
        cell.counts.call++;
        if (cell.done && cell.state !== "running") throw toolError(cell, { message: "the cell has ended", code: "invalid_input" });
        const e = findEntry(run, id);
        if (!e) throw unknownTool(cell, id);
        if (!CORE_ONLY && cell.pending.size >= cfg.maxPendingToolCalls) {
          cell.fatal = { code: "too_many_pending_tool_calls", message: `more than maxPendingToolCalls (${cfg.maxPendingToolCalls}) nested calls in flight` };
          throw toolError(cell, { message: cell.fatal.message, code: "too_many_pending_tool_calls" });
        }
        const copy = toJSONValue(input === undefined ? {} : input, 0, new Set());
        if (!cell.calledToolIds.includes(e.id)) cell.calledToolIds.push(e.id);
        const callId = `${cell.id}/call-${String(++cell.callSeq).padStart(3, "0")}`;
        let dropped = false;
        const answer = new Promise((resolve, reject) => {
          cell.pending.set(callId, { toolId: e.id, drop: () => { dropped = true; } });
          invoke({
            run: run.id, toolCallId: callId, parentToolCallId: cell.parent, catalogId: e.id, tool: e.name, source: e.source, owner: e.owner,
            input: copy === undefined ? {} : copy, context: run.context,
          }).then(resolve, reject);
        });
        try {
          const res = await answer;
          if (dropped) return new Promise(() => {});
          return guestValue(cell, res && res.result);
        } catch (err) {
          if (dropped) return new Promise(() => {});
          const f = { message: String(err && err.message), code: "nested_tool_failed" };
          if (err && err.data !== undefined) f.data = err.data;
          throw toolError(cell, f);
        } finally {
          cell.pending.delete(callId);
        }
      },
    };
    // Helpers (fault 6): one per unambiguous safe name.
    const byName = new Map();
    for (const e of guestEntries(run)) {
      const n = safeName(e.name);
      byName.set(n, byName.has(n) ? null : e);
    }
    for (const [n, e] of byName) {
      if (!e || n === "search" || n === "describe" || n === "call" || n in Object.prototype) continue;
      tools[n] = (input) => tools.call(e.id, input);
    }
    const pushOutput = (item, bytes) => {
      if (cell.done && cell.state !== "running") return;
      cell.outputBytes += bytes;
      if (cell.outputBytes > cfg.maxOutputBytes) {
        cell.fatal = { code: "output_limit_exceeded", message: `output exceeds maxOutputBytes (${cfg.maxOutputBytes} bytes)` };
        throw toolError(cell, { message: cell.fatal.message, code: "output_limit_exceeded" });
      }
      cell.output.push(item);
    };
    return {
      ALL_TOOLS: guestEntries(run).map(compact),
      tools,
      MCP: {},
      namespaces: {},
      API: { list: async () => [], read: async (path) => { throw toolError(cell, { message: `Unknown API path ${JSON.stringify(String(path))}.` }); } },
      text: (value) => {
        const s = typeof value === "string" ? value : JSON.stringify(toJSONValue(value, 0, new Set())) ?? "undefined";
        pushOutput({ type: "text", text: s }, Buffer.byteLength(s));
      },
      json: (value) => {
        const v = toJSONValue(value, 0, new Set());
        const s = JSON.stringify(v === undefined ? null : v);
        pushOutput({ type: "json", value: JSON.parse(s) }, Buffer.byteLength(s));
      },
      yield_control: (reason) => new Promise((resolve) => {
        cell.yieldRequested = true;
        cell.yieldReason = reason === undefined ? "" : String(reason);
        cell.yieldResolve = resolve;
      }),
    };
  }

  // ---- values --------------------------------------------------------------------

  // describeThrown turns anything a guest threw into "<Name>: <message>".
  function describeThrown(e) {
    if (e !== null && typeof e === "object") {
      let name = "Error", message = "";
      try { name = String(e.name); } catch { /* hostile getter */ }
      try { message = String(e.message); } catch { message = "(unreadable message)"; }
      return `${name}: ${message}`;
    }
    let s;
    try { s = String(e); } catch { s = "(unprintable value)"; }
    return "Error: Uncaught " + s;
  }

  // toJSONValue is the output adapter: a JSON-compatible copy of a guest
  // value; what JSON cannot hold becomes a plain string.
  function toJSONValue(v, depth, seen) {
    switch (typeof v) {
      case "string": case "boolean": return v;
      case "number": return Number.isFinite(v) ? v : null;
      case "undefined": return undefined;
      case "bigint": return String(v);
      case "symbol": return v.toString();
      case "function": return "[Function" + (v.name ? ": " + v.name : "") + "]";
    }
    if (v === null) return null;
    if (depth > 64) return "[MaxDepth]";
    if (seen.has(v)) return "[Circular]";
    if (ArrayBuffer.isView(v) || Object.prototype.toString.call(v) === "[object ArrayBuffer]") return "[Binary data is not supported]";
    seen.add(v);
    try {
      let toJSON;
      try { toJSON = v.toJSON; } catch (e) { return "[Unserializable: " + describeThrown(e) + "]"; }
      if (typeof toJSON === "function") {
        try { return toJSONValue(toJSON.call(v, ""), depth + 1, seen); } catch (e) { return "[Unserializable: " + describeThrown(e) + "]"; }
      }
      if (Array.isArray(v)) {
        const out = [];
        for (let i = 0; i < v.length; i++) {
          let x;
          try { x = toJSONValue(v[i], depth + 1, seen); } catch (e) { x = "[Unserializable: " + describeThrown(e) + "]"; }
          out.push(x === undefined ? null : x);
        }
        return out;
      }
      const out = {};
      for (const k of Object.keys(v)) {
        let x;
        try { x = toJSONValue(v[k], depth + 1, seen); } catch (e) { x = "[Unserializable: " + describeThrown(e) + "]"; }
        if (x !== undefined) Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
      }
      return out;
    } finally {
      seen.delete(v);
    }
  }
}
