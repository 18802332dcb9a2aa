package codemode

import (
	"github.com/codemode-conformance/codemode/fakes/tools"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var _ = Describe("codemode", "nested call deadline", func() {
	It("CM-NEST-24", "a nested call left unanswered for snapshotTtlSeconds is canceled and rejects in the guest, however often the model calls wait", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(map[string]any{"snapshotTtlSeconds": 2}), Tools: tools.Standard()})
		res, steps := r.RunToCompletion(ctx, Guest(`try { await call("slow", {ms: 120000}); return "answered"; } catch (e) { return "caught: " + String(e && e.message).slice(0, 300); }`))
		Expect(len(steps)).To(BeNumerically(">", 1), "the cell awaiting a 120 s call must wait at least once before the call's deadline: %s", res)
		Expect(res).To(BeCompleted(), "the call's deadline (snapshotTtlSeconds: 2, above timeoutMs so the cell waits first: protocol.md §10) must end the wait loop with a rejection the guest catches, not keep the cell waiting: %s", res)
		Expect(res.ValueAny()).To(HavePrefix("caught: "), "the guest must catch the call that got no answer within snapshotTtlSeconds: %s", res)
		Eventually(r.Tools.Canceled).Should(Equal(1), "the target must send tool.cancel for the call it gave up")
	}, HangIsFailure)
})
