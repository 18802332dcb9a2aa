package broken

import (
	"encoding/json"
	"sync"
)

// continuationDispatch serves the reference so that a cell's value is
// answered only after the nested calls its continuations make once the value
// is determined (a then or finally on an earlier call, an async function
// still running) have been dispatched and settled, as a runtime that keeps
// draining its guest's jobs and dispatching their calls after the return
// would. The code runs with tools shadowed by a proxy that records each
// call's promise; after the value, the wrapper waits until no new call
// appears.
func continuationDispatch() serveFunc {
	return rewritingCode(func(code string) string {
		return `const __calls = []; const __value = await (async () => { ` +
			`const tools = new Proxy({}, {get(_, k) { const t = globalThis.tools, v = t[k]; return typeof v === "function" ? (...a) => { const p = v.apply(t, a); __calls.push(p); return p; } : v; }}); ` + // a proxy of an empty target: tools is frozen, and a get trap may not change a frozen member
			code + "\n})(); " +
			`for (let n = -1; n !== __calls.length;) { n = __calls.length; await Promise.allSettled(__calls); for (let i = 0; i < 20; i++) await null; } ` +
			`return __value;`
	})
}

// unpolicedBridgeGlobal serves the reference with the run's deny list
// enforced in the guest API only, above a raw bridge left reachable: the
// deny list never reaches the host (run.prepare loses it), each cell's code
// runs with ALL_TOOLS, tools.call, tools.search and tools.describe filtered
// by it, and a global __codemode.call sends any tool id through unfiltered,
// so a guest that finds it makes the host invoke a tool outside the run's
// catalog.
func unpolicedBridgeGlobal() serveFunc {
	var mu sync.Mutex
	deny := map[string][]string{} // run → the deny entries it was prepared with
	return proxied(func(msg map[string]any) (edited, die bool) {
		p, _ := msg["params"].(map[string]any)
		run, _ := p["run"].(string)
		switch msg["method"] {
		case "run.prepare":
			pol, _ := p["policy"].(map[string]any)
			d, _ := pol["deny"].([]any)
			if len(d) == 0 {
				return false, false
			}
			names := []string{}
			for _, e := range d {
				if s, ok := e.(string); ok {
					names = append(names, s)
				}
			}
			mu.Lock()
			deny[run] = names
			mu.Unlock()
			delete(pol, "deny")
			return true, false
		case "tool.exec":
			mu.Lock()
			names := deny[run]
			mu.Unlock()
			if names == nil {
				return false, false
			}
			list, _ := json.Marshal(names)
			return editCode(msg, func(code string) string { return guestPolicy(string(list)) + code }), false
		}
		return false, false
	})
}

// guestPolicy is the cell prefix of unpolicedBridgeGlobal for the deny
// entries list (a JSON array of tool names).
func guestPolicy(list string) string {
	return `const __deny = new Set(` + list + `); const __allTools = globalThis.ALL_TOOLS; const __denied = (id) => __allTools.some((t) => t.id === id && __deny.has(t.name)); ` +
		`if (!("__codemode" in globalThis)) Object.defineProperty(globalThis, "__codemode", {value: Object.freeze({call: (id, input) => globalThis.tools.call(id, input)}), configurable: true}); ` +
		`const ALL_TOOLS = __allTools.filter((t) => !__deny.has(t.name)); ` +
		`const tools = new Proxy({}, {get(_, k) { const t = globalThis.tools; ` + // a proxy of an empty target: tools is frozen
		`if (k === "call") return (id, input) => __denied(id) ? Promise.reject(new Error("Unknown tool id " + JSON.stringify(id))) : t.call(id, input); ` +
		`if (k === "search") return async (...a) => (await t.search(...a)).filter((e) => !__deny.has(e.name)); ` +
		`if (k === "describe") return (id) => __denied(id) ? Promise.reject(new Error("Unknown tool id " + JSON.stringify(id))) : t.describe(id); ` +
		`return __deny.has(k) ? undefined : t[k]; }}); `
}
