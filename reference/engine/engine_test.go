package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/reference/engine"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestEngine(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "reference/engine")
}

var eng *engine.Engine

var _ = BeforeSuite(func(ctx SpecContext) {
	var err error
	eng, err = engine.New(ctx)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { eng.Close(context.Background()) })
})

func newVM(ctx context.Context) *engine.VM {
	vm, err := eng.NewVM(ctx, engine.Limits{MemoryBytes: 16 << 20})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { vm.Close(context.Background()) })
	return vm
}

var _ = Describe("Engine", func() {
	It("evaluates JavaScript and reports exceptions as data", func(ctx SpecContext) {
		vm := newVM(ctx)
		Expect(vm.Eval(ctx, `[1, 2, 3].map((x) => x * 2).join(",")`, "t.js")).To(Equal("2,4,6"))
		_, err := vm.Eval(ctx, `null.x`, "t.js")
		var ex *engine.Exception
		Expect(errors.As(err, &ex)).To(BeTrue())
		Expect(ex.Message).To(ContainSubstring("TypeError"))
		Expect(vm.Eval(ctx, `"still usable"`, "t.js")).To(Equal("still usable"))
	})

	It("resumes a pending promise from a snapshot restored into a fresh instance (CM-RUN-01)", func(ctx SpecContext) {
		before := eng.LiveVMs()
		vm, err := eng.NewVM(ctx, engine.Limits{MemoryBytes: 16 << 20})
		Expect(err).NotTo(HaveOccurred())
		_, err = vm.Eval(ctx, `globalThis.out = "pending"; (async () => { const v = await new Promise((r) => globalThis.resolve = r); out = "got " + v; })(); ""`, "t.js")
		Expect(err).NotTo(HaveOccurred())
		snap, err := vm.Snapshot()
		Expect(err).NotTo(HaveOccurred())
		vm.Close(ctx)
		Expect(eng.LiveVMs()).To(Equal(before), "the snapshot must not keep an instance alive")

		restored, err := eng.Restore(ctx, snap)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { restored.Close(context.Background()) })
		Expect(restored.Eval(ctx, `resolve(7); out`, "t.js")).To(Equal("pending"))
		Expect(restored.RunJobs(ctx)).To(BeNumerically(">=", 1))
		Expect(restored.Eval(ctx, `out`, "t.js")).To(Equal("got 7"))
	})

	It("stops an infinite loop at the context deadline (CM-LIM-01)", func(ctx SpecContext) {
		vm := newVM(ctx)
		dctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		_, err := vm.Eval(dctx, `for (;;) {}`, "t.js")
		Expect(err).To(MatchError(engine.ErrDeadline))
	})

	It("confines a trap to its own VM (CM-SEC-04)", func(ctx SpecContext) {
		vm := newVM(ctx)
		// Out of memory is a trap (unbounded recursion no longer is: the
		// stack limit makes it a catchable RangeError).
		_, err := vm.Eval(ctx, `const a = []; for (;;) a.push("x".repeat(1 << 20))`, "t.js")
		var trap *engine.Trap
		Expect(errors.As(err, &trap)).To(BeTrue())
		_, err = vm.Eval(ctx, `1`, "t.js")
		Expect(err).To(HaveOccurred(), "a trapped VM must stay dead")
		Expect(newVM(ctx).Eval(ctx, `"fresh"`, "t.js")).To(Equal("fresh"))
	})

	It("stops a guest at the memory limit with an uncatchable out-of-memory trap (CM-LIM-02)", func(ctx SpecContext) {
		vm := newVM(ctx)
		_, err := vm.Eval(ctx, `try { const a = []; for (;;) a.push("x".repeat(1 << 20)); } catch (e) { "caught: " + e }`, "t.js")
		Expect(err).To(MatchError(engine.ErrOutOfMemory), "QuickJS-NG 0.18 makes out of memory uncatchable: the guest's catch must not run")
		Expect(vm.OutOfMemory()).To(BeTrue(), "the out-of-memory listener must have seen the allocation failure")
		Expect(vm.MemoryBytes()).To(BeNumerically("<=", int64(engine.PagesFor(16<<20))*engine.PageSize))
	})
})
