package broken

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

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
		Variant{Name: "batch-partly-started", Breaks: "CM-NEST-23", Spec: "no nested call reaches the harness after the answer that ended its cell", Profile: "v2",
			Defect: "under bridge-queue, a synchronous batch over maxPendingToolCalls plus the 128 queued starts calls until maxPendingToolCalls and only then fails the cell: 001 admits no partial batch (under pending-call-limit, as OpenClaw 2026.7.35 does, this conforms)",
			Serve:  withDefectsUnder("v2", codemode.Defects{StartBeforeBatchLimit: true})},
		Variant{Name: "never-settled-late-timeout", Breaks: "CM-EXEC-07", Spec: "fails instead of completing or hanging",
			Defect: fmt.Sprintf("a cell whose promise can never settle is not seen as such: the target idles until a late watchdog ends it with a plain timeout %s after the request, past the harness's bound for its 2 s budget (timeoutMs + 15 s, protocol.md §1), so the exec hangs as the harness sees it", lateTimeoutAfter),
			Serve:  lateTimeoutForNeverSettled()},
		Variant{Name: "off-surface-rewrites-tools", Breaks: "CM-ACT-01", Spec: "disabled configuration leaves the model tool list",
			Defect: "every run without code mode, tools.codeMode absent or disabled alike, drops the echo tool and rewrites the other tools' descriptions, so comparing disabled runs with a run without tools.codeMode shows no difference (verdict audit F12)",
			Serve:  outbound(rewriteOffSurface)},
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

// rewriteOffSurface drops echo from the tools of every run.prepare answer
// with code mode off and appends " (deferred)" to the others' descriptions.
func rewriteOffSurface(msg map[string]any) (edited, drop bool) {
	res, ok := msg["result"].(map[string]any)
	if !ok || msg["method"] != nil || res["codeModeActive"] != false {
		return false, false
	}
	ts, _ := res["tools"].([]any)
	kept := []any{}
	for _, t := range ts {
		m, ok := t.(map[string]any)
		if !ok || m["name"] == "echo" {
			continue
		}
		m["description"] = fmt.Sprint(m["description"]) + " (deferred)"
		kept = append(kept, m)
	}
	res["tools"] = kept
	return true, false
}

// lateTimeoutAfter is when lateTimeoutForNeverSettled answers a cell whose
// promise never settles: 5 s past the harness's bound for CM-EXEC-07's 2 s
// cell (timeoutMs + protocol.ToolCallSlack, the most protocol.md §1 lets a
// conformant target take), so the harness gives up on the call first. An
// answer inside that bound conforms (§14.7; the audit of 2026-12-02).
const lateTimeoutAfter = 2*time.Second + protocol.ToolCallSlack + 5*time.Second

// lateTimeoutForNeverSettled serves the reference behind a proxy that holds
// back every exec/wait answer saying the cell's promise never settles (the
// reference fails such a cell at once, protocol.md §14.8) until
// lateTimeoutAfter after the request, and then answers it as a plain
// timeout: a target that cannot tell a dead cell from a slow one and waits
// for a watchdog well past the budget.
func lateTimeoutForNeverSettled() serveFunc {
	var mu sync.Mutex
	sent := map[string]time.Time{} // exec/wait request id -> when it arrived
	return lineProxy(func(l lines, b []byte) {
		var msg rpc
		if json.Unmarshal(b, &msg) == nil && (msg.Method == "tool.exec" || msg.Method == "tool.wait") {
			mu.Lock()
			sent[string(msg.ID)] = time.Now()
			mu.Unlock()
		}
		l.toReference(b)
	}, func(l lines, b []byte) {
		var m map[string]any
		if json.Unmarshal(b, &m) != nil || m["method"] != nil {
			l.toHarness(b)
			return
		}
		res, _ := m["result"].(map[string]any)
		why, _ := res["error"].(string)
		if res["status"] != "failed" || !strings.Contains(why, "never settles") {
			l.toHarness(b)
			return
		}
		id, _ := json.Marshal(m["id"])
		mu.Lock()
		at, ok := sent[string(id)]
		delete(sent, string(id))
		mu.Unlock()
		if !ok {
			at = time.Now()
		}
		res["code"] = "timeout"
		res["error"] = "code mode cell timed out"
		out, _ := json.Marshal(m)
		time.AfterFunc(time.Until(at.Add(lateTimeoutAfter)), func() { l.toHarness(out) })
	})
}
