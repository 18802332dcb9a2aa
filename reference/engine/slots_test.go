package engine_test

import (
	"context"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/reference/engine"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// limitRunning sets the process's run slots and quantum for one spec.
func limitRunning(n int, quantum time.Duration) {
	old := engine.Quantum
	engine.SetMaxRunning(n)
	engine.Quantum = quantum
	DeferCleanup(func() {
		engine.SetMaxRunning(0)
		engine.Quantum = old
	})
}

var _ = Describe("run slots: VMs executing guest code at once", func() {
	It("time-slices spinning VMs under a limit of 2: each reaches its own deadline and a late short cell still finishes", func(ctx SpecContext) {
		limitRunning(2, 5*time.Millisecond)
		const spinners = 8
		vms := make([]*engine.VM, spinners)
		for i := range vms {
			vms[i] = newVM(ctx)
		}
		short := newVM(ctx)
		errs := make([]error, spinners)
		took := make([]time.Duration, spinners)
		var wg sync.WaitGroup
		for i, vm := range vms {
			wg.Add(1)
			go func() {
				defer wg.Done()
				dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
				defer cancel()
				start := time.Now()
				_, errs[i] = vm.Eval(dctx, `for (;;) {}`, "spin.js")
				took[i] = time.Since(start)
			}()
		}
		Eventually(engine.Waiting).Should(BeNumerically(">", 0), "with %d spinners and 2 slots some must wait", spinners)
		Consistently(engine.Running, 200*time.Millisecond, time.Millisecond).Should(BeNumerically("<=", 2), "no more than 2 VMs may execute guest code at once")

		// Without time slicing the spinners keep both slots until their
		// deadline: this cell would wait for it.
		start := time.Now()
		got, err := short.Eval(ctx, `let c = 0; for (let i = 0; i < 1e5; i++) c += i; c`, "short.js")
		Expect(err).NotTo(HaveOccurred(), "a short cell behind %d spinners must finish", spinners)
		Expect(got).To(Equal("4999950000"), "the short cell's value")
		Expect(time.Since(start)).To(BeNumerically("<", time.Second), "a short cell must get a slot within a few quanta, not at the spinners' 2 s deadline")

		wg.Wait()
		for i := range vms {
			Expect(errs[i]).To(MatchError(engine.ErrDeadline), "spinner %d must stop at its deadline", i)
			Expect(errs[i]).NotTo(MatchError(engine.ErrAbandoned), "spinner %d must be stopped by its interrupt poll, not the watchdog", i)
			Expect(took[i]).To(BeNumerically("<", 2*time.Second+engine.Grace), "spinner %d must stop near its deadline (took %s)", i, took[i])
		}
		Expect(engine.Running()).To(Equal(0), "every slot must be back once the spinners stopped")
	})

	DescribeTable("stops a VM that waits for a slot at its deadline or cancellation",
		func(ctx SpecContext, cancelIt bool, want error) {
			limitRunning(1, time.Hour) // the holder never hands its slot over
			holder, waiter := newVM(ctx), newVM(ctx)
			hctx, stopHolder := context.WithTimeout(ctx, 10*time.Second)
			defer stopHolder()
			held := make(chan error, 1)
			go func() {
				_, err := holder.Eval(hctx, `for (;;) {}`, "hold.js")
				held <- err
			}()
			Eventually(engine.Running).Should(Equal(1), "the holder must take the only slot")
			wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
			defer cancel()
			if cancelIt {
				time.AfterFunc(50*time.Millisecond, cancel)
			}
			start := time.Now()
			_, err := waiter.Eval(wctx, `1 + 1`, "wait.js")
			Expect(err).To(MatchError(want), "a VM waiting for a slot must stop with the run's own error")
			Expect(time.Since(start)).To(BeNumerically("<", time.Second), "it must not wait for the holder")
			Expect(engine.Waiting()).To(Equal(0), "the stopped VM must leave the queue")
			stopHolder()
			Expect(<-held).To(MatchError(engine.ErrCanceled), "the holder stops when cancelled")
			Eventually(engine.Running).Should(Equal(0), "the holder's slot must be back")
		},
		Entry("deadline", false, engine.ErrDeadline),
		Entry("cancellation (an aborted run)", true, engine.ErrCanceled),
	)
})

var _ = Describe("run slots: what a VM waited for (issue 28 N12)", func() {
	It("counts a VM's wait for a slot and its held time apart, and says when its deadline came while it waited", func(ctx SpecContext) {
		limitRunning(1, time.Hour) // the spinner never hands its slot over
		spinner, waiter := newVM(ctx), newVM(ctx)
		done := make(chan error, 1)
		go func() {
			sctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			defer cancel()
			_, err := spinner.Eval(sctx, `for (;;) {}`, "spin.js")
			done <- err
		}()
		Eventually(engine.Running).Should(Equal(1), "the spinner holds the only slot")
		wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		_, err := waiter.Eval(wctx, `1 + 1`, "short.js")
		Expect(err).To(MatchError(engine.ErrDeadline), "the waiter's deadline passes while it waits for the slot")
		Expect(waiter.StoppedWaiting()).To(BeTrue(), "its stop came while it waited, not while it ran")
		waited, held := waiter.SlotTimes()
		Expect(waited).To(BeNumerically(">", 0))
		Expect(held).To(BeZero(), "it never held a slot")
		Eventually(done).WithTimeout(10 * time.Second).Should(Receive(MatchError(engine.ErrDeadline)))
		Expect(spinner.StoppedWaiting()).To(BeFalse(), "the spinner's stop came while it ran")
		_, held = spinner.SlotTimes()
		Expect(held).To(BeNumerically(">", 0))
	})
})
