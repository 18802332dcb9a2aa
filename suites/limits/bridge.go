package limits

import (
	"fmt"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

// bridgeMemory is the memoryLimitBytes of the bridge-size specs, and
// oversized the size of the values they send across the bridge: half again
// more JSON than the guest's whole memory, so no bound a target may choose
// lets it through (protocol.md §4, "Bridge value size").
const (
	bridgeMemory = 16 << 20
	oversized    = 24 << 20
)

// cleanFailure is guest code that calls the bridge through call (an
// expression awaiting tools.call) and returns "caught: <message>" when the
// call rejects, or "delivered <n>" with n the size of what arrived.
func cleanFailure(call string) string {
	return Guest(fmt.Sprintf(`try { const v = %s; return "delivered " + JSON.stringify(v).length; } catch (e) { return "caught: " + String(e && e.message).slice(0, 300); }`, call))
}

var _ = Describe("limits", "bridge value size", func() {
	It("CM-LIM-07", "a tool result larger than the guest's memory fails cleanly, a small one arrives intact, and the runtime keeps serving", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"memoryLimitBytes": bridgeMemory}), Tools: tools.Standard()})
		res, _ := r.RunToCompletion(ctx, cleanFailure(fmt.Sprintf(`(await call("big", {size: %d}))`, oversized)))
		switch res.Status {
		case result.StatusCompleted:
			Expect(res.ValueAny()).To(HavePrefix("caught: "),
				"a %d-byte tool result under memoryLimitBytes %d must reach the guest as a catchable error or fail the cell, never arrive whole: %s", oversized, bridgeMemory, res)
		default:
			Expect(res).To(BeFailed(), "a %d-byte tool result under memoryLimitBytes %d must fail the cell cleanly if the guest cannot catch it", oversized, bridgeMemory)
		}
		Expect(r.Tools.CallsOf("big")).To(HaveLen(1), "the cell calls big once: %s", res)
		small, _ := r.RunToCompletion(ctx, cleanFailure(`(await call("big", {size: 262144}))`))
		Expect(small).To(CompleteWith(fmt.Sprintf("delivered %d", 262144+2)), "a 256 KiB tool result is far below any bridge bound and must arrive intact %s", EnvelopeNote)
		other := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		again, _ := other.RunToCompletion(ctx, Guest(`return (await call("add", {a: 2, b: 3})).sum;`))
		Expect(again).To(CompleteWith(5), "the runtime must keep serving new runs after an oversized tool result %s", EnvelopeNote)
	}, HangIsFailure)

	It("CM-LIM-07", "a tool input larger than the guest's memory fails cleanly without reaching the tool, and the runtime keeps serving", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"memoryLimitBytes": bridgeMemory}), Tools: tools.Standard()})
		// 24 references to one 1 MiB string: little memory in the guest, 24 MiB of JSON on the bridge.
		res, _ := r.RunToCompletion(ctx, cleanFailure(fmt.Sprintf(`(() => { const s = "x".repeat(1 << 20); const parts = []; for (let i = 0; i < %d; i++) parts.push(s); return dispatch("echo", {parts}); })().then((v) => callValue(id("echo"), v))`, oversized>>20)))
		for _, c := range r.Tools.Calls() {
			Expect(len(c.Input)).To(BeNumerically("<=", bridgeMemory), "a tool received a %d-byte input from a guest whose memoryLimitBytes is %d: the bridge must bound inputs", len(c.Input), bridgeMemory)
		}
		switch res.Status {
		case result.StatusCompleted:
			Expect(res.ValueAny()).To(HavePrefix("caught: "),
				"a %d-byte tool input under memoryLimitBytes %d must be refused as a catchable error or fail the cell, never be delivered: %s", oversized, bridgeMemory, res)
		default:
			Expect(res).To(BeFailed(), "a %d-byte tool input under memoryLimitBytes %d must fail the cell cleanly if the guest cannot catch it", oversized, bridgeMemory)
		}
		again, _ := r.RunToCompletion(ctx, Guest(`return (await call("echo", {message: "still here"})).message;`))
		Expect(again).To(CompleteWith("still here"), "the run must keep serving after an oversized tool input %s", EnvelopeNote)
	}, HangIsFailure)
})
