package engine_test

import (
	"context"
	"time"

	"github.com/codemode-conformance/codemode/reference/engine"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Hostile cells on a reused instance: whatever a cell leaves behind (pending
// jobs, registries, finalizers, a thrown job, a deep stack) must not be seen
// by the next cell that takes the same instance (CM-EXEC-12).
var _ = Describe("Instance reuse against hostile cells", func() {
	It("leaves nothing of a cell's jobs, registries or stack in the next cell (CM-EXEC-12)", func(ctx SpecContext) {
		t, err := eng.NewTemplate(ctx, engine.Limits{MemoryBytes: 16 << 20}, func(ctx context.Context, vm *engine.VM) error {
			_, err := vm.Eval(ctx, `1`, "boot.js")
			return err
		})
		Expect(err).NotTo(HaveOccurred())
		probe := `[typeof globalThis.hit, typeof Symbol.keyFor(Symbol.for("adv")) , Symbol.for("adv") === globalThis.sym, typeof Error.prepareStackTrace, typeof globalThis.SharedArrayBuffer, Error.stackTraceLimit, (function d(n){try{return d(n+1)}catch(e){return n > 100}})(0)].join(",")`
		clean := func() string {
			vm, err := t.NewVM(ctx)
			Expect(err).NotTo(HaveOccurred())
			defer vm.Close(ctx)
			v, err := vm.Eval(ctx, probe, "probe.js")
			Expect(err).NotTo(HaveOccurred())
			return v
		}
		want := clean()
		dirty := []string{
			// pending jobs that would set a global on the next cell's RunJobs
			`globalThis.sym = Symbol.for("adv"); Promise.resolve().then(() => { globalThis.hit = 1 }); 1`,
			// a finalizer and a weakref
			`new FinalizationRegistry(() => { globalThis.hit = 1 }).register({}, 1); globalThis.w = new WeakRef({}); 1`,
			// prepareStackTrace and stack limit
			`Error.prepareStackTrace = () => "x"; Error.stackTraceLimit = 0; 1`,
			// deep recursion ending in a caught RangeError, with a job queued afterwards
			`(function d(){ try { d() } catch (e) {} })(); Promise.reject(1).catch(() => { globalThis.hit = 1 }); 1`,
			// a job that throws
			`Promise.resolve().then(() => { globalThis.hit = 1; throw new Error("x") }); 1`,
		}
		for _, src := range dirty {
			idle := eng.IdleInstances()
			vm, err := t.NewVM(ctx)
			Expect(err).NotTo(HaveOccurred())
			_, err = vm.Eval(ctx, src, "dirty.js")
			Expect(err).NotTo(HaveOccurred(), src)
			vm.Close(ctx) // jobs left pending on purpose
			Expect(eng.IdleInstances()).To(BeNumerically(">=", min(idle, 1)), "instance parked: "+src)
			Expect(clean()).To(Equal(want), "state of the cell %q must not survive in the next cell on its reused instance", src)
		}
		// A job run to a throw mid-way, then closed.
		vm, err := t.NewVM(ctx)
		Expect(err).NotTo(HaveOccurred())
		_, err = vm.Eval(ctx, `Promise.resolve().then(() => { globalThis.hit = 1; throw 1 }); Promise.resolve().then(() => { globalThis.hit2 = 1 }); 1`, "job.js")
		Expect(err).NotTo(HaveOccurred())
		_, _ = vm.RunJobs(ctx)
		vm.Close(ctx)
		Expect(clean()).To(Equal(want), "a cell that ran a throwing job must not leak")
		// A cell stopped at its deadline mid-job.
		vm, err = t.NewVM(ctx)
		Expect(err).NotTo(HaveOccurred())
		_, err = vm.Eval(ctx, `Promise.resolve().then(() => { globalThis.hit = 1; for(;;){} }); 1`, "spin.js")
		Expect(err).NotTo(HaveOccurred())
		dctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		_, _ = vm.RunJobs(dctx)
		cancel()
		vm.Close(ctx)
		Expect(clean()).To(Equal(want), "a cell stopped mid-job must not leak")
	})
})
