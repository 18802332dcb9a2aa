// Plugin namespaces (feature namespaces, spec/protocol.md §5.5) in
// OpenClaw's own process-wide registry.
//
// OpenClaw keeps namespace registrations in a Map at
// globalThis[Symbol.for("openclaw.codeMode.namespaces")].registrations
// (registry-*.js, src/agents/code-mode-namespaces.ts), keyed by id, and code
// mode reads it per exec (listCodeModeNamespaces → createCodeModeNamespaceRuntime:
// visibility by requiredToolNames, createScope(ctx), serialisation, the
// worker's globals, the guarded invoke). The plugin-side writer,
// registerCodeModeNamespace(ForPlugin), and createCodeModeNamespaceTool are
// not in the 2026.7.35 bundle (no chunk defines or exports them), so the
// adapter puts each registration into that Map as the writer would: the
// entry shape {pluginId, id, globalName, description, prompt,
// requiredToolNames, createScope} and the callable marker
// {[Symbol.for("openclaw.codeMode.namespaceToolCall")]: true, toolName,
// input} are OpenClaw's. Every check of a registration (raw functions,
// cycles, forbidden keys, globalName, collisions) is left to OpenClaw's
// runtime; whatever validation the missing writer would add is not judged.

const REGISTRY_KEY = Symbol.for("openclaw.codeMode.namespaces");
const TOOL_CALL = Symbol.for("openclaw.codeMode.namespaceToolCall");

// registrations is OpenClaw's Map, or null when the loaded chunks did not
// create it (then namespaces cannot be driven).
export function registrations() {
  const state = globalThis[REGISTRY_KEY];
  return state?.registrations instanceof Map ? state.registrations : null;
}

let instances = 0;

// applyNamespaces applies run.prepare's namespaces member (§5.5 order:
// clearAll, clearPlugins, register). A registration without pluginId, id or
// scope is a -32602 (returned as the message).
export function applyNamespaces(ns) {
  if (ns == null) return null;
  const map = registrations();
  if (!map) return "OpenClaw's namespace registry (Symbol.for(\"openclaw.codeMode.namespaces\")) is not loaded";
  for (const r of ns.register ?? []) {
    if (typeof r?.pluginId !== "string" || r.pluginId === "" || typeof r?.id !== "string" || r.id === "" || r.scope === undefined) {
      return "a namespace registration needs pluginId, id and scope";
    }
  }
  if (ns.clearAll === true) map.clear();
  for (const pluginId of ns.clearPlugins ?? []) {
    // clearCodeModeNamespacesForPlugin, which is not exported, does exactly this.
    for (const reg of [...map.values()]) if (reg.pluginId === String(pluginId).trim()) map.delete(reg.id);
  }
  for (const r of ns.register ?? []) map.set(r.id, registration(r));
  return null;
}

function registration(r) {
  return {
    pluginId: r.pluginId,
    id: r.id,
    globalName: r.globalName,
    description: r.description,
    ...(r.prompt !== undefined ? { prompt: r.prompt } : {}),
    requiredToolNames: Array.isArray(r.requiredToolNames) ? r.requiredToolNames : [],
    // OpenClaw calls createScope with the code-mode ctx (agentId, sessionId,
    // sessionKey, runId, config = the OpenClaw config, abortSignal). A
    // plugin's own configuration is what its register() closed over: the
    // registration's config.
    createScope: (ctx) => scopeOf(r, ctx),
  };
}

function scopeOf(r, ctx) {
  const shared = new Map();
  const instance = `instance-${++instances}`;
  const node = (v) => {
    if (Array.isArray(v)) return v.map(node);
    if (v === null || typeof v !== "object") return v;
    if (!Object.prototype.hasOwnProperty.call(v, "$codemode")) {
      const o = {};
      for (const [k, c] of Object.entries(v)) Object.defineProperty(o, k, { value: node(c), enumerable: true, writable: true, configurable: true });
      return o;
    }
    switch (v.$codemode) {
      case "tool":
        return { [TOOL_CALL]: true, toolName: String(v.tool), ...(v.input?.kind === "positional" ? { input: positional(v.input.names) } : {}) };
      case "function":
        // A raw host function, which OpenClaw must refuse (CM-NS-07).
        return async () => ({ raw: v.name });
      case "ref": {
        if (!shared.has(v.name)) {
          // Placeholder first, so a ref to itself makes a real cycle.
          const target = {};
          shared.set(v.name, target);
          const built = node(r.shared?.[v.name]);
          if (built !== null && typeof built === "object" && !Array.isArray(built)) Object.assign(target, built);
          else shared.set(v.name, built);
        }
        return shared.get(v.name);
      }
      case "context":
        if (v.key === "config") return r.config ?? null;
        if (v.key === "aborted") return ctx?.abortSignal?.aborted === true;
        if (v.key === "instance") return instance;
        return ctx?.[v.key];
      case "nonJson":
        return nonJson(v.type, v.text);
      default:
        return v;
    }
  };
  return node(r.scope);
}

// positional is the {kind: "positional"} input mapper; the default (the
// first argument, {} when absent or null) is OpenClaw's own (args[0] ?? {}).
function positional(names) {
  return (args) => {
    const out = {};
    (Array.isArray(names) ? names : []).forEach((n, i) => {
      if (i < args.length) out[n] = args[i];
    });
    return out;
  };
}

function nonJson(type, text) {
  switch (type) {
    case "undefined":
      return undefined;
    case "nan":
      return NaN;
    case "infinity":
      return Infinity;
    case "bigint":
      return BigInt(text);
    case "date":
      return new Date(text);
    case "symbol":
      return Symbol(text);
    case "binary":
      return new TextEncoder().encode(text ?? "");
    case "instance": {
      const C = { [text || "Thing"]: class {} }[text || "Thing"];
      return new C();
    }
    default:
      return text;
  }
}
