// Gateway mode of the openclaw: target (feature agent-turn, spec/protocol.md
// §3 "agent.turn"): each agent.turn runs as one real turn of a long-lived
// `openclaw gateway` on loopback, sent as POST /v1/chat/completions with the
// turn's fresh `user`.
//
// One gateway serves one configuration family: the run's agent id, raw
// tools.codeMode, allow/deny policy and harness tools (as generated plugins,
// gateway/plugin.mjs), and the provider's model id. Runs of the same family
// reuse it. Its model provider is a loopback pass-through in this process
// that forwards each request, unchanged, to the provider of the turn in
// flight (turns of one gateway run one at a time), so a new fake provider
// per spec needs no new gateway. Plugin tools forward every invocation to
// the bridge here, which sends it to the harness as tool.invoke.
//
// Nothing is emulated: tool surface, policy, code mode, the catalog and the
// transcript are the gateway's. The run's MCP servers are the gateway's
// `mcp.servers` config, which its embedded attempt connects to through its
// own bundle MCP runtime (as lib/mcp.mjs does at module level). What it
// cannot take (fault injection, a step bound) is refused with the reason.

import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { mcpServersConfig } from "./mcp.mjs";

// The custom provider's id in the gateway config.
export const PROVIDER_ID = "harness";

// How many gateways stay alive at once (each takes about 0.7 GB and 5–15 s
// to start); the least recently used idle one is stopped first.
const MAX_LIVE = 2;
const READY_TIMEOUT_MS = 180_000;
const START_ATTEMPTS = 2;

export class GatewayError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// pluginGroups groups the run's non-client tools by the plugin that hosts
// them in the gateway: a plugin tool by its owner (the plugin id); a tool of
// source openclaw (owner core) by a plugin whose id is its owner, so
// OpenClaw's catalog classifies it as openclaw:core:<name> (see TRIAGE.md).
export function pluginGroups(tools) {
  const groups = new Map();
  for (const t of tools ?? []) {
    if (t.source !== "plugin" && t.source !== "openclaw") continue;
    if (!groups.has(t.owner)) groups.set(t.owner, []);
    groups.get(t.owner).push(t);
  }
  return groups;
}

// familyKey names a configuration family: everything the gateway's config
// and plugins are made of (not the run's identity: turns key sessions on
// their own user).
export function familyKey(prep, model) {
  const groups = [...pluginGroups(prep.tools).entries()].map(([owner, ts]) => [
    owner,
    ts.map((t) => [t.source, t.name, t.label ?? null, t.description ?? "", t.parameters ?? null]),
  ]);
  const codeMode = Object.prototype.hasOwnProperty.call(prep, "codeMode") ? { v: prep.codeMode } : null;
  const agentCodeMode = Object.prototype.hasOwnProperty.call(prep, "agentCodeMode") ? { v: prep.agentCodeMode } : null;
  const mcp = mcpServersConfig(prep.mcpServers).servers ?? {};
  const body = JSON.stringify([prep.agentId, codeMode, agentCodeMode, prep.policy ?? null, groups, model, mcp]);
  return crypto.createHash("sha256").update(body).digest("hex").slice(0, 16);
}

// gatewayConfig is the gateway's openclaw.json for a family. tools.allow
// keeps the agent to the harness's tools (OpenClaw's own core tools and
// bundled plugins stay out, as in the module-level adapter); the run's
// policy is the agent's own tools.allow/deny; tools.codeMode is the raw
// run.prepare value, omitted when absent, and agentCodeMode the agent's.
// The run's MCP servers (spec/protocol.md §5.6) are OpenClaw's mcp.servers
// (lib/mcp.mjs mcpServersConfig); tools.allow then also names bundle-mcp,
// the plugin id OpenClaw's materializeBundleMcpToolsForRun gives MCP tools,
// without which its embedded attempt neither creates the bundle MCP
// runtime (shouldCreateBundleMcpRuntimeForAttempt) nor keeps their tools.
export function gatewayConfig({ prep, model, port, token, providerBaseUrl, pluginDirs, stateDir }) {
  const owners = [...pluginDirs.keys()];
  const agentTools = {};
  if (Array.isArray(prep.policy?.allow)) agentTools.allow = prep.policy.allow;
  if (Array.isArray(prep.policy?.deny)) agentTools.deny = prep.policy.deny;
  // The agent's own tools.codeMode (CM-CFG-10), raw; OpenClaw lays it over
  // the runtime's tools.codeMode.
  if (Object.prototype.hasOwnProperty.call(prep, "agentCodeMode")) agentTools.codeMode = prep.agentCodeMode;
  const mcpServers = mcpServersConfig(prep.mcpServers).servers ?? {};
  const hasMcp = Object.keys(mcpServers).length > 0;
  const allow = [...owners, ...(hasMcp ? ["bundle-mcp"] : [])];
  const tools = { allow: allow.length > 0 ? allow : ["codemode-conformance-no-tools"] };
  if (Object.prototype.hasOwnProperty.call(prep, "codeMode")) tools.codeMode = prep.codeMode;
  return {
    gateway: {
      mode: "local",
      bind: "loopback",
      port,
      auth: { mode: "token", token },
      http: { endpoints: { chatCompletions: { enabled: true } } },
      // No browser dashboard: it is on no turn's path, and it unpacks about
      // 8000 asset files into each gateway's state (state/cache).
      controlUi: { enabled: false },
    },
    agents: {
      defaults: { model: { primary: `${PROVIDER_ID}/${model}` }, heartbeat: { every: "0m" } },
      list: [{ id: prep.agentId, default: true, ...(Object.keys(agentTools).length > 0 ? { tools: agentTools } : {}) }],
    },
    models: {
      mode: "replace",
      providers: {
        [PROVIDER_ID]: {
          baseUrl: providerBaseUrl,
          apiKey: "codemode-conformance",
          api: "openai-completions",
          models: [
            {
              id: model,
              name: model,
              reasoning: false,
              input: ["text"],
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
              contextWindow: 128000,
              maxTokens: 4096,
            },
          ],
        },
      },
    },
    // allowConversationAccess: OpenClaw runs a non-bundled plugin's agent_end
    // hook only when its entry allows it (the run's trajectory, plugin.mjs).
    plugins: { allow: owners, load: { paths: [...pluginDirs.values()] }, entries: Object.fromEntries(owners.map((o) => [o, { hooks: { allowConversationAccess: true } }])) },
    tools,
    ...(hasMcp ? { mcp: { servers: mcpServers } } : {}),
    logging: { file: path.join(stateDir, "openclaw.log") },
  };
}

// textOf joins the text parts of a transcript message's content.
function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((c) => c?.type === "text")
    .map((c) => c.text)
    .join("");
}

// transcriptMessages turns the entries of a gateway session transcript
// (one JSON object per line) into the turn's ChatMessages (protocol.md
// agent.turn): user, assistant (text, tool_calls with the model's ids and
// arguments as JSON text), tool (tool_call_id, the result text). Other
// entries (model changes, custom records) are not messages.
export function transcriptMessages(entries) {
  const out = [];
  for (const e of entries) {
    if (e?.type !== "message" || !e.message) continue;
    const m = e.message;
    if (m.role === "user") {
      out.push({ role: "user", content: textOf(m.content) });
    } else if (m.role === "assistant") {
      const calls = (Array.isArray(m.content) ? m.content : []).filter((c) => c?.type === "toolCall");
      const text = textOf(m.content);
      const msg = { role: "assistant", content: calls.length > 0 && text === "" ? null : text };
      if (calls.length > 0) {
        msg.tool_calls = calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}) },
        }));
      }
      out.push(msg);
    } else if (m.role === "toolResult") {
      out.push({ role: "tool", tool_call_id: m.toolCallId, content: textOf(m.content) });
    }
  }
  return out;
}

// nestedParent reads the parent exec/wait call id out of the id OpenClaw
// gives a nested call. OpenClaw hands a plugin tool no parent (its code-mode
// executor calls tool.execute(id, input, signal, onUpdate)), but names it in
// the nested call id: `tool_search_code:<parent>:<tool name>:<n>`, the parent
// sanitised to [A-Za-z0-9_.:-] and cut at 120 characters (tool-search
// sanitizeToolCallIdPart). A direct call (the model's own id) has none: "".
export function nestedParent(toolCallId, tool) {
  const prefix = "tool_search_code:";
  if (!toolCallId.startsWith(prefix)) return "";
  const m = new RegExp(`:${tool.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\\d+$`).exec(toolCallId);
  if (!m) return "";
  const parent = toolCallId.slice(prefix.length, m.index);
  return parent === "direct" ? "" : parent;
}

// sessionKeyOf picks, among a gateway's session keys, the one of the
// chat-completions session keyed on user (`agent:<agentId>:openai-user:<user>`,
// lower-cased by the gateway).
export function sessionKeyOf(keys, user) {
  const want = `:openai-user:${user}`.toLowerCase();
  const key = keys.find((k) => k.toLowerCase().endsWith(want));
  if (!key) throw new GatewayError("transcript", `the gateway has no session for user ${JSON.stringify(user)} (keys: ${keys.join(", ")})`);
  return key;
}

// sqliteSessionEntries reads a session's transcript from a generation-2
// agent database: session_nodes maps the session key to its current
// session id, session_transcript_active_events lists the events of the
// active branch in order, transcript_events holds each one as JSON text
// (event_json) or zstd-compressed (event_zstd). Opened read-only: the
// gateway owns the database.
export function sqliteSessionEntries(file, user) {
  const { DatabaseSync } = process.getBuiltinModule("node:sqlite");
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const keys = db.prepare("SELECT session_key FROM session_nodes").all().map((r) => r.session_key);
    const key = sessionKeyOf(keys, user);
    const { current_session_id: sid } = db.prepare("SELECT current_session_id FROM session_nodes WHERE session_key = ?").get(key);
    const rows = db
      .prepare(
        `SELECT e.event_json AS json, e.event_zstd AS zstd FROM session_transcript_active_events a
         JOIN transcript_events e ON e.session_id = a.session_id AND e.seq = a.event_seq
         WHERE a.session_id = ? ORDER BY a.active_position`,
      )
      .all(sid);
    return rows.map((r) => JSON.parse(r.json ?? zlib.zstdDecompressSync(r.zstd).toString("utf8")));
  } finally {
    db.close();
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function tail(file, n = 3000) {
  try {
    const b = fs.readFileSync(file, "utf8");
    return b.slice(-n);
  } catch {
    return "";
  }
}

function readBody(req, limit = 64 << 20) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (c) => {
      size += c.length;
      if (size > limit) {
        reject(new Error(`request body over ${limit} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

// One gateway process.
class Gateway {
  constructor(pool, key) {
    this.pool = pool;
    this.key = key;
    this.id = crypto.randomBytes(6).toString("hex");
    this.upstream = null; // the provider baseUrl of the turn in flight
    this.queue = Promise.resolve();
    this.busy = 0;
    this.lastUsed = Date.now();
  }

  async start(prep, model) {
    const pool = this.pool;
    this.dir = fs.mkdtempSync(path.join(pool.root, "gw-"));
    this.stateDir = path.join(this.dir, "state");
    const home = path.join(this.dir, "home");
    fs.mkdirSync(this.stateDir, { recursive: true });
    fs.mkdirSync(home, { recursive: true });
    const pluginDirs = new Map();
    for (const [owner, tools] of pluginGroups(prep.tools)) {
      const dir = path.join(this.dir, "plugins", owner.replace(/[^A-Za-z0-9._-]/g, "_"));
      fs.mkdirSync(dir, { recursive: true });
      fs.copyFileSync(pool.pluginTemplate, path.join(dir, "index.mjs"));
      fs.writeFileSync(
        path.join(dir, "tools.json"),
        JSON.stringify({ id: owner, tools: tools.map((t) => ({ name: t.name, label: t.label, description: t.description, parameters: t.parameters, resultContentSource: t.resultContentSource })) }),
      );
      fs.writeFileSync(
        path.join(dir, "openclaw.plugin.json"),
        JSON.stringify({
          id: owner,
          name: owner,
          description: "codemode-conformance harness tools",
          contracts: { tools: tools.map((t) => t.name) },
          activation: { onStartup: true },
          configSchema: { type: "object", additionalProperties: false },
        }),
      );
      fs.writeFileSync(
        path.join(dir, "package.json"),
        JSON.stringify({ name: `codemode-conformance-plugin-${this.id}-${pluginDirs.size}`, version: "0.0.0", type: "module", openclaw: { extensions: ["./index.mjs"] } }),
      );
      pluginDirs.set(owner, dir);
    }
    this.port = await freePort();
    this.token = crypto.randomBytes(16).toString("hex");
    this.agentId = prep.agentId;
    const config = gatewayConfig({
      prep,
      model,
      port: this.port,
      token: this.token,
      providerBaseUrl: `${pool.bridgeUrl}/p/${pool.secret}/${this.id}/v1`,
      pluginDirs,
      stateDir: this.stateDir,
    });
    this.configPath = path.join(this.dir, "openclaw.json");
    fs.writeFileSync(this.configPath, JSON.stringify(config, null, 2));
    this.logPath = path.join(this.dir, "gateway.log");
    const logFd = fs.openSync(this.logPath, "a");
    const env = {
      ...process.env,
      HOME: home,
      OPENCLAW_CONFIG_PATH: this.configPath,
      OPENCLAW_STATE_DIR: this.stateDir,
      CODEMODE_GATEWAY_BRIDGE: `${pool.bridgeUrl}/i/${pool.secret}`,
      // No respawn (the adapter owns the process), no LAN advertising, no
      // background watchers or update checks: a loopback gateway only.
      // Channels, the browser control server and the start-up model
      // prewarm are skipped as in OpenClaw's own throw-away gateways
      // (2026.9.6 update-rehearsal-paths: buildUpdateRehearsalPathEnv);
      // none of them is on a turn's path, and each costs start-up time.
      OPENCLAW_NO_RESPAWN: "1",
      OPENCLAW_DISABLE_BONJOUR: "1",
      OPENCLAW_SKIP_GMAIL_WATCHER: "1",
      OPENCLAW_SKIP_CRON: "1",
      OPENCLAW_SKIP_CANVAS_HOST: "1",
      OPENCLAW_SKIP_CHANNELS: "1",
      OPENCLAW_SKIP_BROWSER_CONTROL_SERVER: "1",
      OPENCLAW_SKIP_STARTUP_MODEL_PREWARM: "1",
      OPENCLAW_NO_AUTO_UPDATE: "1",
    };
    this.child = spawn(pool.node, [pool.openclaw, "gateway", "run", "--port", String(this.port), "--bind", "loopback"], {
      env,
      stdio: ["ignore", logFd, logFd],
    });
    fs.closeSync(logFd);
    this.exited = new Promise((resolve) => this.child.on("exit", (code, sig) => resolve({ code, sig })));
    this.child.on("error", (err) => pool.log(`openclaw gateway ${this.id}: ${err.message}`));
    const t0 = Date.now();
    await this.ready();
    pool.log(`openclaw gateway ${this.id} (family ${this.key}) ready on 127.0.0.1:${this.port} in ${((Date.now() - t0) / 1000).toFixed(1)} s; config and log in ${this.dir}`);
  }

  async ready() {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    let dead = null;
    this.exited.then((x) => (dead = x));
    while (Date.now() < deadline) {
      if (dead) {
        const err = new GatewayError("gateway_start", `openclaw gateway exited during start-up (code ${dead.code}, signal ${dead.sig}); its log:\n${tail(this.logPath)}`);
        err.exitedDuringStart = true;
        throw err;
      }
      try {
        const res = await fetch(`http://127.0.0.1:${this.port}/v1/models`, { headers: { authorization: `Bearer ${this.token}` }, signal: AbortSignal.timeout(2000) });
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    this.stop();
    throw new GatewayError("gateway_start", `openclaw gateway was not ready within ${READY_TIMEOUT_MS / 1000} s; its log:\n${tail(this.logPath)}`);
  }

  // exclusive runs fn with the gateway to itself (one turn at a time, so
  // the provider pass-through knows where to forward).
  exclusive(fn) {
    this.busy++;
    const run = this.queue.then(fn);
    this.queue = run.catch(() => {});
    return run.finally(() => {
      this.busy--;
      this.lastUsed = Date.now();
    });
  }

  async post(body, channel) {
    const headers = { authorization: `Bearer ${this.token}`, "content-type": "application/json" };
    const res = await fetch(`http://127.0.0.1:${this.port}/v1/chat/completions`, { method: "POST", headers, body: JSON.stringify(body) });
    const text = await res.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      // reported below
    }
    return { status: res.status, json, text };
  }

  // sessionEntries reads the transcript entries (one JSON object each) of
  // the session the gateway keyed on user. Generation 1 keeps a session
  // index (agents/<agentId>/sessions/sessions.json) and one JSONL file per
  // session; generation 2 (2026.9.x) keeps both in the agent's SQLite
  // database (agents/<agentId>/agent/openclaw-agent.sqlite, docs
  // concepts/session.md "Runtime session rows and transcripts").
  sessionEntries(user) {
    const agentDir = path.join(this.stateDir, "agents", this.agentId);
    const index = path.join(agentDir, "sessions", "sessions.json");
    const db = path.join(agentDir, "agent", "openclaw-agent.sqlite");
    if (!fs.existsSync(index) && fs.existsSync(db)) return sqliteSessionEntries(db, user);
    let sessions;
    try {
      sessions = JSON.parse(fs.readFileSync(index, "utf8"));
    } catch (err) {
      throw new GatewayError("transcript", `cannot read the gateway's session index ${index} (nor a session database ${db}): ${err.message}`);
    }
    const key = sessionKeyOf(Object.keys(sessions), user);
    const s = sessions[key];
    const file = s.sessionFile ?? path.join(path.dirname(index), `${s.sessionId}.jsonl`);
    return fs
      .readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l));
  }

  stop() {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGTERM");
    const child = this.child;
    setTimeout(() => {
      if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }, 5000).unref();
  }
}

// GatewayPool owns the gateways of one adapter process, the bridge server
// (plugin tool invocations and the provider pass-through) and the turns.
export class GatewayPool {
  // node: the Node binary; openclaw: openclaw.mjs of the installed package;
  // pluginTemplate: gateway/plugin.mjs; invoke(params, signal): sends
  // tool.invoke and resolves with the harness's answer ({result} or
  // {error}); log(line).
  constructor({ node, openclaw, pluginTemplate, invoke, cancel, log }) {
    this.node = node;
    this.openclaw = openclaw;
    this.pluginTemplate = pluginTemplate;
    this.invoke = invoke;
    this.cancel = cancel;
    this.log = log ?? (() => {});
    this.gateways = new Map(); // family key → Promise<Gateway>
    this.byId = new Map(); // gateway id → Gateway (ready)
    this.all = new Set(); // every gateway started and not stopped
    this.turns = new Map(); // lower-case user → {run, prep}
    this.secret = crypto.randomBytes(16).toString("hex");
    this.root = null;
    this.server = null;
  }

  async #init() {
    if (this.server) return;
    this.root = fs.mkdtempSync(path.join(os.tmpdir(), "codemode-openclaw-gateway-"));
    this.server = http.createServer((req, res) => this.#serve(req, res));
    await new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(0, "127.0.0.1", resolve);
    });
    this.server.unref();
    this.bridgeUrl = `http://127.0.0.1:${this.server.address().port}`;
  }

  #serve(req, res) {
    const parts = (req.url ?? "").split("/");
    // /i/<secret>: a plugin tool invocation; /p/<secret>/<gw>/v1/…: the
    // provider pass-through.
    if (parts[2] !== this.secret) {
      res.writeHead(404).end();
      return;
    }
    if (parts[1] === "i" && req.method === "POST") {
      this.#invoke(req, res).catch((err) => {
        if (!res.headersSent) res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(err?.message ?? err) } }));
      });
      return;
    }
    if (parts[1] === "p") {
      this.#proxy(req, res, parts[3], "/" + parts.slice(5).join("/")).catch((err) => {
        if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `codemode-conformance pass-through: ${err.message}` } }));
      });
      return;
    }
    res.writeHead(404).end();
  }

  // #proxy forwards one provider request of gateway gwId to the provider of
  // the turn in flight, unchanged (method, path under /v1, headers, body),
  // and streams the answer back.
  async #proxy(req, res, gwId, rest) {
    const gw = this.byId.get(gwId);
    if (!gw || !gw.upstream) {
      res.writeHead(503, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "no agent.turn in flight for this gateway: the request is not forwarded" } }));
      return;
    }
    const body = await readBody(req);
    const target = new URL(gw.upstream.replace(/\/+$/, "") + rest);
    const headers = { ...req.headers, host: target.host, "content-length": String(body.length) };
    await new Promise((resolve, reject) => {
      const up = http.request(target, { method: req.method, headers }, (ur) => {
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        ur.pipe(res);
        ur.on("end", resolve);
        ur.on("error", reject);
      });
      up.on("error", reject);
      res.on("close", () => up.destroy());
      up.end(body);
    });
  }

  // #invoke answers one plugin tool invocation: it finds the turn by the
  // session the gateway ran the tool in, maps the plugin tool back to the
  // run's tool spec and sends tool.invoke with OpenClaw's context.
  async #invoke(req, res) {
    const call = JSON.parse((await readBody(req)).toString("utf8"));
    const sessionKey = String(call.context?.sessionKey ?? "").toLowerCase();
    if (call.kind === "agent_end") {
      // Every generated plugin of the gateway forwards it; the last one kept.
      const at = sessionKey.lastIndexOf(":openai-user:");
      if (at >= 0) this.#agentEnd(sessionKey.slice(at + ":openai-user:".length), Array.isArray(call.messages) ? call.messages : []);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ result: true }));
      return;
    }
    let turn = null;
    for (const [user, t] of this.turns) if (sessionKey.endsWith(`:openai-user:${user}`)) turn = t;
    if (!turn) throw new Error(`codemode-conformance: no agent.turn in flight owns session ${JSON.stringify(call.context?.sessionKey)}`);
    const spec = (turn.prep.tools ?? []).find((t) => t.owner === call.plugin && t.name === call.tool && (t.source === "plugin" || t.source === "openclaw"));
    if (!spec) throw new Error(`codemode-conformance: run ${turn.run} has no tool ${call.plugin}/${call.tool}`);
    const ac = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) ac.abort();
    });
    const ctx = call.context ?? {};
    const params = {
      run: turn.run,
      toolCallId: String(call.toolCallId ?? ""),
      parentToolCallId: nestedParent(String(call.toolCallId ?? ""), call.tool),
      // OpenClaw's catalog id of a plugin tool: openclaw:<pluginId>:<name>
      // (tool-search classifyTool/makeCatalogId); the plugin is not told it.
      catalogId: `openclaw:${call.plugin}:${call.tool}`,
      tool: spec.name,
      source: spec.source,
      owner: spec.owner,
      input: call.input ?? {},
      context: {
        agentId: String(ctx.agentId ?? ""),
        sessionId: String(ctx.sessionId ?? ""),
        sessionKey: String(ctx.sessionKey ?? ""),
        senderId: String(ctx.senderId ?? ""),
        channel: String(ctx.channel ?? ""),
      },
    };
    let answer;
    try {
      answer = await this.invoke(params, ac.signal);
    } catch (err) {
      if (ac.signal.aborted) return;
      throw err;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(answer.error ? { error: answer.error } : { result: answer.result?.result ?? null }));
  }

  async #gateway(prep, model) {
    const key = familyKey(prep, model);
    let p = this.gateways.get(key);
    if (!p) {
      this.#evict();
      p = this.#start(key, prep, model).then((gw) => {
        this.byId.set(gw.id, gw);
        gw.promise = p;
        gw.exitWatch = gw.exited.then(({ code, sig }) => {
          this.log(`openclaw gateway ${gw.id} exited (code ${code}, signal ${sig}); log ${gw.logPath}`);
          if (this.gateways.get(key) === p) this.gateways.delete(key);
          this.byId.delete(gw.id);
          this.all.delete(gw);
        });
        return gw;
      });
      this.gateways.set(key, p);
      p.catch(() => this.gateways.delete(key));
    }
    return p;
  }

  // #start starts a gateway of family key. A gateway that exits during
  // start-up is replaced by a fresh one (new state directory), up to
  // START_ATTEMPTS in all: on a loaded machine 2026.9.6 can refuse to start
  // when its state-lease heartbeat worker misses a fixed start-up deadline
  // (openclaw-state-lease-heartbeat: "state lease heartbeat did not become
  // ready", exit 78), which says nothing about the turn to be judged.
  async #start(key, prep, model) {
    for (let attempt = 1; ; attempt++) {
      const gw = new Gateway(this, key);
      this.all.add(gw);
      try {
        await gw.start(prep, model);
        return gw;
      } catch (err) {
        this.all.delete(gw);
        if (!err.exitedDuringStart || attempt >= START_ATTEMPTS) throw err;
        this.log(`openclaw gateway ${gw.id} (family ${key}) exited during start-up, attempt ${attempt} of ${START_ATTEMPTS}; starting a fresh one. ${err.message.slice(-600)}`);
      }
    }
  }

  // #evict stops the least recently used idle gateways until fewer than
  // MAX_LIVE are ready (synchronous: no turn can slip in between).
  #evict() {
    const ready = [...this.byId.values()].sort((a, b) => a.lastUsed - b.lastUsed);
    let n = ready.length;
    for (const gw of ready) {
      if (n < MAX_LIVE) break;
      if (gw.busy > 0) continue;
      if (this.gateways.get(gw.key) === gw.promise) this.gateways.delete(gw.key);
      this.byId.delete(gw.id);
      gw.stop();
      n--;
    }
  }

  // turn runs one agent.turn (protocol.md §3) of the prepared run
  // {id, prepare} and returns its result.
  async turn(run, p) {
    const prep = run.prepare;
    if (p.faults != null) throw new GatewayError(-32602, "agent.turn: faults need the feature fault-injection, which the OpenClaw gateway does not have");
    if (p.maxSteps > 0) throw new GatewayError(-32602, "agent.turn: maxSteps is not drivable through the gateway: it runs its own agent loop, and the number of provider requests of one turn cannot be bounded from its HTTP API");
    await this.#init();
    const gw = await this.#gateway(prep, p.provider.model);
    return gw.exclusive(async () => {
      const user = p.user;
      const key = user.toLowerCase();
      if (this.turns.has(key)) throw new GatewayError(-32602, `agent.turn: user ${JSON.stringify(user)} has a turn in flight`);
      this.turns.set(key, { run: run.id, prep });
      this.turnsOf(run.id).push(key);
      gw.upstream = p.provider.baseUrl;
      const t0 = Date.now();
      try {
        return await this.#turn(gw, run, prep, p);
      } finally {
        this.log(`agent.turn of run ${run.id} on gateway ${gw.id}: ${Date.now() - t0} ms`);
        gw.upstream = null;
        this.turns.delete(key);
      }
    });
  }

  async #turn(gw, run, prep, p) {
    const client = (prep.tools ?? []).filter((t) => t.source === "client");
    const messages = [...(Array.isArray(p.history) ? p.history : []), { role: "user", content: p.message }];
    const body = { model: `openclaw/${prep.agentId}`, user: p.user, messages };
    if (client.length > 0) {
      body.tools = client.map((t) => ({ type: "function", function: { name: t.name, description: t.description ?? "", parameters: t.parameters ?? { type: "object", properties: {} } } }));
    }
    // Bounds the client-tool round trips only (each is one HTTP request
    // that may make several provider requests inside the gateway).
    const maxRounds = 16;
    let final = null;
    for (let step = 0; ; step++) {
      if (step >= maxRounds) return this.#result(gw, run, p, { status: "failed", code: "max_steps", error: `no final answer within ${maxRounds} client-tool round trips through the gateway` });
      const r = await gw.post(body);
      if (r.status !== 200 || !r.json?.choices?.[0]) {
        const why = r.json?.error?.message ?? r.text.slice(0, 2000);
        return this.#result(gw, run, p, { status: "failed", code: "provider_error", error: `the gateway answered HTTP ${r.status}: ${why}` });
      }
      const msg = r.json.choices[0].message ?? {};
      const calls = Array.isArray(msg.tool_calls) ? msg.tool_calls : [];
      if (calls.length === 0) {
        final = typeof msg.content === "string" ? msg.content : textOf(msg.content);
        break;
      }
      // Client tools: the gateway hands their calls to the HTTP caller
      // (finish_reason tool_calls); the caller runs them and continues
      // the same session with role "tool" messages.
      body.messages = [...body.messages, { role: "assistant", content: msg.content ?? null, tool_calls: calls }];
      for (const c of calls) {
        const spec = client.find((t) => t.name === c.function?.name);
        let content;
        if (!spec) {
          content = JSON.stringify({ error: `${c.function?.name} is not a client tool of the run` });
        } else {
          let input = {};
          try {
            input = c.function?.arguments ? JSON.parse(c.function.arguments) : {};
          } catch {
            input = c.function?.arguments;
          }
          const answer = await this.invoke({
            run: run.id,
            toolCallId: String(c.id ?? ""),
            catalogId: `client:client:${spec.name}`,
            tool: spec.name,
            source: spec.source,
            owner: spec.owner,
            input,
            // The HTTP caller runs a client tool, and the caller is the
            // harness's side: the run's own identity.
            context: { agentId: prep.agentId, sessionId: prep.sessionId, sessionKey: prep.sessionKey, senderId: prep.senderId, channel: prep.channel },
          });
          content = answer.error ? JSON.stringify({ error: answer.error.message }) : JSON.stringify(answer.result?.result ?? null);
        }
        body.messages = [...body.messages, { role: "tool", tool_call_id: c.id, content }];
      }
    }
    return this.#result(gw, run, p, { status: "completed", text: final ?? "" });
  }

  #result(gw, run, p, res) {
    let messages = [];
    try {
      messages = transcriptMessages(gw.sessionEntries(p.user));
    } catch (err) {
      if (res.status === "completed") throw err;
    }
    return { run: run.id, ...res, messages };
  }

  // turnsOf lists the (lower-cased) users of a run's agent turns, oldest
  // first.
  turnsOf(runId) {
    this.runTurns ??= new Map();
    if (!this.runTurns.has(runId)) this.runTurns.set(runId, []);
    return this.runTurns.get(runId);
  }

  // #agentEnd keeps the messages OpenClaw handed the agent_end hooks of the
  // turn of user, and wakes whoever waits for them.
  #agentEnd(user, messages) {
    this.agentEnds ??= new Map();
    this.agentEnds.set(user, messages);
    for (const w of this.endWaiters?.get(user) ?? []) w(messages);
    this.endWaiters?.delete(user);
  }

  // agentEndMessages resolves with the agent_end messages of user's turn,
  // or null when none arrive within ms (OpenClaw runs agent_end hooks as a
  // side effect after the reply, so they may come after agent.turn answered).
  agentEndMessages(user, ms) {
    const have = this.agentEnds?.get(user);
    if (have) return Promise.resolve(have);
    return new Promise((resolve) => {
      this.endWaiters ??= new Map();
      const list = this.endWaiters.get(user) ?? [];
      const timer = setTimeout(() => resolve(null), ms);
      timer.unref?.();
      list.push((m) => {
        clearTimeout(timer);
        resolve(m);
      });
      this.endWaiters.set(user, list);
    });
  }

  // forgetRun drops what turnsOf and agentEndMessages keep for a run.
  forgetRun(runId) {
    for (const u of this.runTurns?.get(runId) ?? []) this.agentEnds?.delete(u);
    this.runTurns?.delete(runId);
  }

  // close stops every gateway (SIGTERM; SIGKILL after 3 s) and removes
  // their directories.
  async close() {
    const all = [...this.all].filter((gw) => gw.child);
    for (const gw of all) gw.stop();
    // Within the harness's 5 s between closing stdin and killing the
    // process group: a gateway still shutting down after 3 s is killed.
    await Promise.all(all.map((gw) => Promise.race([gw.exited, new Promise((r) => setTimeout(r, 3000).unref())])));
    this.killNow();
    this.server?.close();
    if (this.root) fs.rmSync(this.root, { recursive: true, force: true });
  }

  // killNow sends SIGKILL to every gateway (process exit: nothing can be
  // awaited any more).
  killNow() {
    for (const gw of this.all) if (gw.child && gw.child.exitCode === null && gw.child.signalCode === null) gw.child.kill("SIGKILL");
  }
}

// trajectoryCalls turns the messages OpenClaw hands its agent_end hooks
// into run.trajectory's calls (spec/protocol.md): each exec/wait call of
// the model in order, each followed by the nested calls made under it.
// The nested calls are OpenClaw's own records of them:
// - 2026.7.35 projects each as an assistant message with one toolCall and
//   its toolResult (projectToolSearchTargetTranscriptMessages), its parent
//   named only in the nested call id (nestedParent);
// - 2026.9.6 appends its nested activity (projectNestedToolActivityForHooks:
//   custom messages "openclaw.nested-tool.v1" whose details carry
//   parentToolCallId, toolCallId, toolName, input, isError, startOrder).
// Neither record carries the catalog id, so none is reported. A nested
// call's status is "error" when its result is marked isError, else "ok"; an
// exec/wait's is its result's details.status.
export function trajectoryCalls(messages) {
  const results = new Map();
  for (const m of messages) if (m?.role === "toolResult" && typeof m.toolCallId === "string") results.set(m.toolCallId, m);
  const top = [];
  const nested = [];
  for (const m of messages) {
    if (m?.role === "custom" && m.customType === "openclaw.nested-tool.v1" && m.details && typeof m.details.toolCallId === "string") {
      const d = m.details;
      nested.push({ order: [1, d.startOrder ?? 0], call: { toolCallId: d.toolCallId, parentToolCallId: d.parentToolCallId ?? "", tool: d.toolName, input: d.input ?? {}, status: d.isError ? "error" : "ok" } });
      continue;
    }
    if (m?.role !== "assistant" || !Array.isArray(m.content)) continue;
    for (const c of m.content) {
      if (c?.type !== "toolCall" || typeof c.id !== "string") continue;
      const r = results.get(c.id);
      const parent = nestedParent(c.id, String(c.name ?? ""));
      const input = c.arguments ?? c.input ?? {};
      if (parent !== "") {
        nested.push({ order: [0, nested.length], call: { toolCallId: c.id, parentToolCallId: parent, tool: c.name, input, status: r ? (r.isError ? "error" : "ok") : "pending" } });
      } else if (c.name === "exec" || c.name === "wait") {
        const status = r?.details?.status;
        top.push({ toolCallId: c.id, tool: c.name, input, status: typeof status === "string" ? status : r ? "failed" : "running" });
      }
    }
  }
  nested.sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1]);
  const calls = [];
  const placed = new Set();
  for (const t of top) {
    calls.push(t);
    for (const n of nested) if (n.call.parentToolCallId === t.toolCallId) {
      calls.push(n.call);
      placed.add(n);
    }
  }
  for (const n of nested) if (!placed.has(n)) calls.push(n.call); // a parent the transcript does not hold
  return calls;
}
