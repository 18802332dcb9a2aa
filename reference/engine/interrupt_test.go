package engine_test

import (
	"context"
	"time"

	"github.com/codemode-conformance/codemode/reference/engine"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("deadlines (CM-LIM-01)", func() {
	DescribeTable("the interrupt handler stops guest code the guest cannot catch",
		func(ctx SpecContext, src string) {
			vm := newVM(ctx)
			dctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
			defer cancel()
			_, err := vm.Eval(dctx, src, "t.js")
			Expect(err).To(MatchError(engine.ErrDeadline), "guest code %s must end at its deadline", src)
			Expect(err).NotTo(MatchError(engine.ErrAbandoned), "the interrupt handler, not the watchdog, must have stopped %s", src)
		},
		Entry("a loop inside try/catch", `for (;;) { try { for (;;) {} } catch (e) {} }`),
		Entry("a catastrophic regular expression", `/^(a+)+$/.test("a".repeat(40) + "b")`),
		Entry("a promise job loop", `(async () => { for (;;) await null })(); for (;;) {}`),
	)

	It("reports a cancellation as ErrCanceled", func(ctx SpecContext) {
		vm := newVM(ctx)
		cctx, cancel := context.WithCancel(ctx)
		time.AfterFunc(50*time.Millisecond, cancel)
		_, err := vm.Eval(cctx, `for (;;) {}`, "t.js")
		Expect(err).To(MatchError(engine.ErrCanceled))
	})

	It("abandons a VM whose native operation never polls, Grace after the deadline", func(ctx SpecContext) {
		old := engine.Grace
		engine.Grace = 50 * time.Millisecond
		DeferCleanup(func() { engine.Grace = old })
		vm, err := eng.NewVM(ctx, engine.Limits{MemoryBytes: 256 << 20})
		Expect(err).NotTo(HaveOccurred())
		defer vm.Close(context.Background())
		dctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		start := time.Now()
		// A sort of a large array with a comparator that is itself native:
		// whether it polls or not, the call must come back by deadline + Grace.
		_, err = vm.Eval(dctx, `const a = Array.from({length: 3e6}, (_, i) => (i * 7919) % 3e6); for (;;) { a.sort(); a.reverse(); }`, "t.js")
		Expect(err).To(MatchError(engine.ErrDeadline))
		Expect(time.Since(start)).To(BeNumerically("<", 3*time.Second), "a deadline must hold within deadline + Grace (+ scheduling)")
		_, err = vm.Eval(ctx, `1`, "t.js")
		Expect(err).To(HaveOccurred(), "a stopped VM must stay dead")
	})
})
