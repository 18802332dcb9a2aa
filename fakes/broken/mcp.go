package broken

import "fmt"

// The MCP variants (feature mcp): each wraps the reference the way the other
// variants do, on the protocol or in the guest code, so the defect is one a
// real implementation could have while everything else stays the
// reference's.

// mcpInCatalog is guest code put before every exec: it shadows ALL_TOOLS and
// tools with views that also list, search, describe and call the MCP tools
// (ids mcp:<server>:<name>, dispatched to MCP.<server>.<tool>), as a
// catalog filter that forgets source mcp would.
const mcpInCatalog = `const ALL_TOOLS = (() => { const out = [...globalThis.ALL_TOOLS];
for (const s of Object.getOwnPropertyNames(MCP)) for (const k of Object.getOwnPropertyNames(MCP[s])) if (k !== "$api" && typeof MCP[s][k] === "function") out.push({id: "mcp:" + s + ":" + k, name: k, description: "MCP tool " + k, source: "mcp", sourceName: s});
return out; })();
const tools = (() => { const base = globalThis.tools, norm = (n) => String(n).toLowerCase().replace(/[-_]/g, "");
const byId = (id) => { const m = /^mcp:([^:]+):(.+)$/.exec(String(id)); const ns = m && MCP[m[1]]; if (!ns) return undefined; const k = Object.getOwnPropertyNames(ns).find((k) => norm(k) === norm(m[2])); return k && typeof ns[k] === "function" ? ns[k] : undefined; };
const byName = (n) => { const e = ALL_TOOLS.find((e) => e.source === "mcp" && norm(e.name) === norm(n)); return e && byId(e.id); };
const api = {
  call: (id, input) => { const f = byId(id); return f ? f(input) : base.call(id, input); },
  describe: (id) => { const e = ALL_TOOLS.find((e) => e.id === id && e.source === "mcp"); return e ? Promise.resolve(e) : base.describe(id); },
  search: async (q, o) => [...await base.search(q, o), ...ALL_TOOLS.filter((e) => e.source === "mcp" && (!q || norm(e.name).includes(norm(q))))],
};
return new Proxy({}, {get: (_, p) => p in api ? api[p] : (typeof p === "string" && byName(p)) || base[p], has: (_, p) => p in api || p in base || (typeof p === "string" && !!byName(p))}); })();
`

// exposingMCP serves the reference with mcpInCatalog before the code of
// every exec.
func exposingMCP() serveFunc {
	return rewritingCode(func(code string) string { return mcpInCatalog + code })
}

// mcpVerbatimNames is guest code put before every exec: it shadows MCP with
// plain objects that carry each tool under its MCP name by assignment, as a
// namespace built without renaming would: "__proto__" then replaces the
// namespace object's prototype instead of defining a member, names such as
// "2fa-code" are no identifiers, and tools named like the namespace's own
// members are lost.
const mcpVerbatimNames = `const MCP = await (async () => { const out = {};
for (const s of Object.getOwnPropertyNames(globalThis.MCP)) { const ns = globalThis.MCP[s], o = {}; const h = await ns.$api();
  for (const t of h.tools) o[t.mcpName] = ns[t.name];
  o.$api = ns.$api; if (ns.resources) o.resources = ns.resources; if (ns.prompts) o.prompts = ns.prompts; out[s] = o; }
return out; })();
`

// verbatimMCPNames serves the reference with mcpVerbatimNames before the
// code of every exec.
func verbatimMCPNames() serveFunc {
	return rewritingCode(func(code string) string { return mcpVerbatimNames + code })
}

// mcpCalls is guest code put before every exec: it shadows MCP with a copy
// whose tool functions are (input) => wrap(call, input), call being the
// reference's function and wrap the JavaScript function expression %s (the
// defect).
const mcpCalls = `const MCP = (() => { const wrap = %s, out = Object.create(null);
for (const s of Object.getOwnPropertyNames(globalThis.MCP)) { const ns = globalThis.MCP[s], o = Object.create(null);
  for (const k of Object.getOwnPropertyNames(ns)) { const v = ns[k];
    Object.defineProperty(o, k, {enumerable: true, value: typeof v === "function" && k !== "$api" ? (input) => wrap(v, input) : v}); }
  out[s] = Object.freeze(o); }
return Object.freeze(out); })();
`

// rewritingMCPCalls serves the reference with mcpCalls (wrap being the
// defect) before the code of every exec.
func rewritingMCPCalls(wrap string) serveFunc {
	prefix := fmt.Sprintf(mcpCalls, wrap)
	return rewritingCode(func(code string) string { return prefix + code })
}

// rewritingMCPResults serves the reference with every MCP tool call's result
// passed through the JavaScript function expression then (the defect).
func rewritingMCPResults(then string) serveFunc {
	return rewritingMCPCalls("(call, input) => call(input).then(" + then + ")")
}

// apiReading serves the reference with API.read's text passed through the
// JavaScript function expression edit (the defect) before the guest sees it.
func apiReading(edit string) serveFunc {
	prefix := "const API = Object.freeze({list: globalThis.API.list, read: async (p) => (" + edit + ")(await globalThis.API.read(p))});\n"
	return rewritingCode(func(code string) string { return prefix + code })
}

// mcpMember serves the reference with the member name of every MCP.<server>
// replaced by the JavaScript function expression replace applied to the
// reference's member (the defect).
func mcpMember(name, replace string) serveFunc {
	prefix := fmt.Sprintf(`const MCP = (() => { const replace = %s, out = Object.create(null);
for (const s of Object.getOwnPropertyNames(globalThis.MCP)) { const ns = globalThis.MCP[s], o = Object.create(null);
  for (const k of Object.getOwnPropertyNames(ns)) Object.defineProperty(o, k, {enumerable: true, value: k === %q ? replace(ns[k]) : ns[k]});
  out[s] = Object.freeze(o); }
return Object.freeze(out); })();
`, replace, name)
	return rewritingCode(func(code string) string { return prefix + code })
}

// apiListing serves the reference with API.list's result passed through the
// JavaScript function expression edit (the defect).
func apiListing(edit string) serveFunc {
	prefix := "const API = Object.freeze({read: globalThis.API.read, list: async (p) => (" + edit + ")(await globalThis.API.list(p))});\n"
	return rewritingCode(func(code string) string { return prefix + code })
}

// apiNormalising is guest code put before every exec: it shadows API with one
// whose read resolves "." and ".." segments (and repeated or leading "/")
// before it looks the path up, as a path.Clean-style lookup would, instead of
// rejecting them.
const apiNormalising = `const API = Object.freeze({list: globalThis.API.list, read: (p) => {
  const out = []; for (const seg of String(p).split("/")) { if (seg === "" || seg === ".") continue; if (seg === "..") out.pop(); else out.push(seg); }
  return globalThis.API.read(out.join("/")); }});
`

// apiCachingList is guest code put before every exec: it shadows API with one
// whose list hands out the same array (and entries) every time, so a guest
// change to what list returned shows in every later list.
const apiCachingList = `const API = (() => { let cached; return Object.freeze({read: globalThis.API.read,
  list: async (prefix) => { if (prefix === undefined) return cached || (cached = await globalThis.API.list()); return globalThis.API.list(prefix); }}); })();
`

// runsNeverEnd serves the reference behind a proxy that turns every run.end
// into a runtime.stats (whose answer the harness takes as run.end's): the
// reference never ends a run, so the stdio MCP servers it started for it
// keep running after run.end was answered.
func runsNeverEnd() serveFunc {
	return proxied(func(msg map[string]any) (edited, die bool) {
		if msg["method"] != "run.end" {
			return false, false
		}
		msg["method"] = "runtime.stats"
		delete(msg, "params")
		return true, false
	})
}
