package broken

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

// keptBridgeGlobal serves the reference with a global named like a bridge
// left reachable: before each cell's code it defines a non-enumerable
// __codemode with poll and deliver functions, the shape of the reference
// prelude's bridge before its global was deleted. (A stand-in: the real
// functions are held by the host; what the spec judges is that guest code can
// find such a thing.)
func keptBridgeGlobal() serveFunc {
	return rewritingCode(func(code string) string {
		return `if (!("__codemode" in globalThis)) Object.defineProperty(globalThis, "__codemode", {value: Object.freeze({poll() { return "{}"; }, deliver(text) { return "ok"; }}), enumerable: false, configurable: true}); ` + code
	})
}
