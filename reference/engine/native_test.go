package engine_test

import (
	"context"
	"time"

	"github.com/codemode-conformance/codemode/reference/engine"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("deadlines on native operations that never poll the interrupt handler (CM-LIM-01)", func() {
	DescribeTable("stop at the deadline, not when the operation ends",
		func(ctx SpecContext, src string) {
			vm := newVM(ctx)
			dctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := vm.Eval(dctx, src, "t.js")
			// An operation that allocates as it goes (fill over holes creates
			// every index) may reach the VM's memory limit before the deadline
			// on a fast, quiet machine: stopped by a limit either way.
			Expect(err).To(SatisfyAny(MatchError(engine.ErrDeadline), MatchError(engine.ErrOutOfMemory)), "%s must end at its deadline (or its memory limit, whichever comes first)", src)
			Expect(err).NotTo(MatchError(engine.ErrAbandoned), "%s must be stopped, not abandoned while it keeps a CPU busy", src)
			Expect(time.Since(start)).To(BeNumerically("<", 200*time.Millisecond+engine.Grace), "%s took past deadline + Grace", src)
		},
		Entry("sort of a huge sparse array", `const a = []; a.length = 4294967295; a.sort().length`),
		Entry("join of a huge sparse array", `const a = []; a.length = 1e9; a.join().length`),
		Entry("includes over a huge sparse array", `const a = []; a.length = 4294967295; a.includes(1)`),
		Entry("lastIndexOf over a huge array-like", `Array.prototype.lastIndexOf.call({length: 4294967295}, 1)`),
		// Loop polls (looppoll.go): string search is quadratic on a
		// near-miss needle (hours), fill over holes creates every index.
		Entry("indexOf of a near-miss needle", `"a".repeat(1 << 22).indexOf("a".repeat(1 << 21) + "b")`),
		Entry("fill over a huge sparse array", `const a = []; a.length = 4294967295; a.fill(0).length`),
		Entry("a loop that throws and catches", `for (;;) { try { throw 1 } catch (e) {} }`),
		Entry("a loop that throws and catches, in an async function", `(async () => { for (;;) { try { throw 1 } catch (e) {} } })()`),
		Entry("a loop in an async function", `(async () => { for (;;) {} })()`),
		Entry("a loop in a finally", `(() => { try { return 1 } finally { for (;;) {} } })()`),
	)
})
