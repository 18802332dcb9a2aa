package codemode

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// heldTool is a tool named held whose invocations the harness answers only
// once release is called (host work that outlives any exec/wait budget the
// spec chooses): it returns {released: true}. release is idempotent and
// also runs when the spec ends, so nothing stays held.
func heldTool() (t tools.Tool, release func()) {
	gate := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	ginkgo.DeferCleanup(release)
	t = tools.Core("held", "Return {released: true} once the host work it stands for is done.", nil,
		func(ctx context.Context, in json.RawMessage) (any, error) {
			select {
			case <-gate:
				return map[string]any{"released": true}, nil
			case <-ctx.Done():
				return nil, protocol.ToolError("held: canceled", nil)
			}
		})
	return t, release
}

var _ = Describe("codemode", "resuming suspended cells", func() {
	It("CM-EXEC-17", "host work still pending at the time budget gives waiting with pending_tools, not timeout, on exec and on wait", func(ctx SpecContext) {
		held, release := heldTool()
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: []tools.Tool{held, tools.Echo()}})
		w := r.Exec(ctx, Guest(`const v = (await call("held", {})); text("resumed"); return v.released;`))
		Expect(w).To(BeWaiting(), "a nested call the harness has not answered when the exec's 1000 ms budget ends is pending host work: the exec must return waiting, not fail with timeout")
		Expect(w.Reason).To(Equal(result.ReasonPendingTools), "a cell suspended on a nested call waits for pending_tools: %s", w)
		Eventually(func() int { return len(r.Tools.CallsOf("held")) }).Should(Equal(1), "the held nested call must reach the harness")
		// Which ids pendingToolCalls carries is a driver-protocol rule (§6),
		// not this requirement's: it is not judged here.
		again := r.Wait(ctx, w.RunID)
		Expect(again).To(BeWaiting(), "the held call is still pending when the wait's 1000 ms budget ends: the wait must return waiting too, not fail with timeout")
		Expect(again.Reason).To(Equal(result.ReasonPendingTools), "the wait still waits for pending_tools: %s", again)
		release()
		final, _ := r.Follow(ctx, again)
		Expect(final).To(CompleteWith(true), "once the host work is done a later wait must resume the same cell and deliver the held call's result %s", EnvelopeNote)
		Expect(r.Tools.CallsOf("held")).To(HaveLen(1), "resuming the cell must not call the held tool again")
	})

	It("CM-EXEC-18", "wait never replays the cell: earlier code, nested calls and output are not executed again", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: tools.Standard()})
		w := r.Exec(ctx, Guest(`const draw = Math.random(); text("before " + draw); json({phase: 1});
			await call("echo", {step: "first"});
			const x = (await call("slow", {ms: 1500, tag: "one"}));
			text("between");
			const y = (await call("slow", {ms: 1500, tag: "two"}));
			text("after"); return {tags: [x.tag, y.tag], draw};`))
		Expect(w).To(BeWaiting(), "a cell awaiting a 1500 ms nested call must suspend under timeoutMs 1000")
		first := r.Wait(ctx, w.RunID)
		// At most once: a target that suspended at the echo call itself (§10)
		// may not have sent it yet; the end of the spec requires it once.
		Expect(len(r.Tools.CallsOf("echo"))).To(BeNumerically("<=", 1), "the echo call made before the suspension was made again after wait: the cell was replayed (result of the wait: %s)", first)
		final, steps := r.Follow(ctx, first)
		Expect(final).To(BeCompleted(), "the cell must complete after its waits")
		v, _ := final.ValueAny().(map[string]any)
		Expect(v).To(HaveKeyWithValue("tags", []any{"one", "two"}), "the resumed cell must return both nested results %s", EnvelopeNote)
		draw, _ := v["draw"].(float64)
		// A replay runs the code again and draws again. Whether a wait result
		// repeats output an earlier result reported is CM-EXEC-14's charge
		// (its decision), so a repeated item is accepted here as long as it
		// is the one written before the suspension, not written again.
		out := AllOutput(append([]Result{w}, steps...))
		Expect(out).To(ContainElement(result.TextOutput("before "+jsNumber(draw))), "the text written before the suspension must carry the value the resumed cell returns: %v", out)
		for _, o := range out {
			if o.Text != nil && strings.HasPrefix(*o.Text, "before ") {
				Expect(*o.Text).To(Equal("before "+jsNumber(draw)), "output written before the suspension was written again with a new Math.random draw: the cell was replayed: %v", out)
			}
		}
		Expect(out).To(ContainElement(result.TextOutput("between")), "output written after the first resume must be returned: %v", out)
		Expect(out).To(ContainElement(result.TextOutput("after")), "output written after the second resume must be returned: %v", out)
		Expect(r.Tools.CallsOf("echo")).To(HaveLen(1), "the echo call made before the first suspension must run once")
		Expect(r.Tools.CallsOf("slow")).To(HaveLen(2), "each slow call must run once: %v", r.Tools.CallsOf("slow"))
	})
})

// jsNumber formats a JavaScript number as String(n) does for the values
// Math.random returns (shortest round-trip form).
func jsNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}
