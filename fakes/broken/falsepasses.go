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
		Variant{Name: "collision-keeps-first-helper", Breaks: "CM-GUEST-06", Spec: "helpers exist only for unambiguous safe names",
			Defect: "helpers are keyed by the safe name (- becomes _), but only tools of the exact same name count as a collision, so list-calendars, declared first, takes the tools.list_calendars helper of list_calendars",
			Serve:  rewritingCode(func(code string) string { return firstWinsHelpers + code })},
		Variant{Name: "batch-partly-started", Breaks: "CM-NEST-23", Spec: "no nested call reaches the harness after the answer that ended its cell",
			Defect: "a batch of calls over maxPendingToolCalls starts calls until the limit and only then fails the cell (OpenClaw 2026.7.35 starts them before it looks at the limit)",
			Serve:  withDefectsUnder("", codemode.Defects{StartBeforeBatchLimit: true})},
	)
}

// firstWinsHelpers shadows the cell's tools with one that also answers a
// helper for every safe name (the name with each character that cannot be in
// an identifier made _) of a tool whose exact name no other tool has, the
// first such tool winning (the reference's own helpers stay).
const firstWinsHelpers = `const tools = (() => { const t = globalThis.tools; const by = new Map(); ` +
	`for (const e of ALL_TOOLS) by.set(e.name, (by.get(e.name) || []).concat([e])); const extra = {}; ` +
	`for (const [n, es] of by) { const k = n.replace(/[^A-Za-z0-9_$]/g, "_"); if (es.length === 1 && /^[A-Za-z_$]/.test(k) && !(k in extra) && !(k in t) && !["search", "describe", "call", "then", "toJSON"].includes(k)) extra[k] = (input) => t.call(es[0].id, input); } ` +
	`return new Proxy(t, {get: (o, k) => (typeof k === "string" && k in extra ? extra[k] : o[k]), has: (o, k) => k in extra || k in o}); })(); `
