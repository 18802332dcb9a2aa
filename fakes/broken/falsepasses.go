package broken

import "github.com/codemode-conformance/codemode/reference/codemode"

// The false passes of issue 23 item 4: each variant passed the spec of its
// requirement before that spec was narrowed to its own property and made to
// check it.
func init() {
	Variants = append(Variants,
		Variant{Name: "complete-undelivered", Breaks: "CM-EXEC-06", Spec: "completed only once no guest work is pending",
			Defect: "a cell whose value is determined completes once the harness answered its nested calls, without delivering the answers: the guest's continuations of those calls never run",
			Serve:  withDefectsUnder("", codemode.Defects{CompleteUndelivered: true})},
		Variant{Name: "never-settled-timeout", Breaks: "CM-EXEC-07",
			Defect: "a cell whose promise can never settle (no host work pending) is not detected: it runs out timeoutMs and fails with timeout",
			Serve:  withDefectsUnder("", codemode.Defects{NeverSettledTimeout: true})},
		Variant{Name: "helpers-by-exact-name", Breaks: "CM-GUEST-06", Spec: "helpers exist only for unambiguous safe names",
			Defect: "helpers are keyed by the exact tool name and only exact names count as a collision, so list-calendars next to list_calendars leaves a tools.list_calendars helper (OpenClaw 2026.7.35)",
			Serve:  rewritingCode(func(code string) string { return exactNameHelpers + code })},
		Variant{Name: "batch-partly-started", Breaks: "CM-NEST-23", Spec: "no nested call reaches the harness after the answer that ended its cell",
			Defect: "a batch of calls over maxPendingToolCalls starts calls until the limit and only then fails the cell (OpenClaw 2026.7.35 starts them before it looks at the limit)",
			Serve:  withDefectsUnder("", codemode.Defects{StartBeforeBatchLimit: true})},
	)
}

// exactNameHelpers shadows the cell's tools with one that also answers a
// helper for every tool whose exact name is an identifier no other tool has,
// without normalising names (the reference's own helpers stay).
const exactNameHelpers = `const tools = (() => { const t = globalThis.tools; const by = new Map(); ` +
	`for (const e of ALL_TOOLS) by.set(e.name, (by.get(e.name) || []).concat([e])); const extra = {}; ` +
	`for (const [n, es] of by) if (es.length === 1 && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(n) && !(n in t) && !["search", "describe", "call", "then", "toJSON"].includes(n)) extra[n] = (input) => t.call(es[0].id, input); ` +
	`return new Proxy(t, {get: (o, k) => (typeof k === "string" && k in extra ? extra[k] : o[k]), has: (o, k) => k in extra || k in o}); })(); `
