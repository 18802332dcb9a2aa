package engine_test

import (
	"context"
	"time"

	"github.com/codemode-conformance/codemode/reference/engine"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Template", func() {
	boot := func(ctx context.Context, vm *engine.VM) error {
		_, err := vm.Eval(ctx, `globalThis.booted = "yes"; Object.freeze(globalThis.booted); 1`, "boot.js")
		return err
	}
	newTemplate := func(ctx context.Context) *engine.Template {
		t, err := eng.NewTemplate(ctx, engine.Limits{MemoryBytes: 16 << 20}, boot)
		Expect(err).NotTo(HaveOccurred(), "booting a template")
		return t
	}
	fromTemplate := func(ctx context.Context, t *engine.Template) *engine.VM {
		vm, err := t.NewVM(ctx)
		Expect(err).NotTo(HaveOccurred(), "restoring the template")
		DeferCleanup(func() { vm.Close(context.Background()) })
		return vm
	}

	It("gives every VM the booted state and none of another VM's changes (CM-EXEC-12)", func(ctx SpecContext) {
		t := newTemplate(ctx)
		a := fromTemplate(ctx, t)
		Expect(a.Eval(ctx, `globalThis.leak = 1; Array.prototype.push = null; booted`, "a.js")).To(Equal("yes"))
		b := fromTemplate(ctx, t)
		Expect(b.Eval(ctx, `typeof leak + "," + typeof Array.prototype.push + "," + booted`, "b.js")).To(Equal("undefined,function,yes"),
			"a global and a prototype changed in one VM must be invisible in the next one from the same template")
	})

	It("reuses the instance of a cleanly closed VM, and nothing of that VM survives in it (CM-EXEC-12)", func(ctx SpecContext) {
		t := newTemplate(ctx)
		restore := func() *engine.VM {
			vm, err := t.NewVM(ctx)
			Expect(err).NotTo(HaveOccurred(), "restoring the template")
			return vm
		}
		// A VM right after its restore differs from the template only by its
		// Math.random seed: its snapshot is that one chunk.
		fresh := restore()
		seeded, err := fresh.Snapshot()
		Expect(err).NotTo(HaveOccurred())
		fresh.Close(ctx)
		idle := eng.IdleInstances()
		Expect(idle).To(BeNumerically(">=", 1), "a cleanly closed template VM must give its instance back")

		a := restore()
		Expect(eng.IdleInstances()).To(Equal(idle-1), "the next restore must take the idle instance")
		Expect(a.Eval(ctx, `globalThis.leak = "x".repeat(5000); Array.prototype.push = null; Object.prototype.polluted = 1; booted`, "a.js")).To(Equal("yes"))
		a.Close(ctx)
		Expect(eng.IdleInstances()).To(Equal(idle), "a VM that changed its heap but not its memory size is reused")

		b := restore()
		snap, err := b.Snapshot()
		Expect(err).NotTo(HaveOccurred())
		Expect(snap.Bytes()).To(Equal(seeded.Bytes()), "a reused instance must differ from the template exactly as a fresh restore does (only the seed)")
		Expect(b.Eval(ctx, `typeof leak + "," + typeof Array.prototype.push + "," + ({}).polluted + "," + booted`, "b.js")).To(Equal("undefined,function,undefined,yes"),
			"a global and prototypes changed in a VM must be invisible in the next one on its reused instance")
		// Memory cannot shrink: a VM whose memory grew is not reused.
		Expect(b.Eval(ctx, `globalThis.big = new Array(1 << 20).fill(1.5); big.length`, "b.js")).To(Equal("1048576"))
		b.Close(ctx)
		Expect(eng.IdleInstances()).To(Equal(idle-1), "an instance whose memory grew must be closed, not reused")
		// Neither is one that was stopped (its memory did not grow).
		c := restore()
		idle = eng.IdleInstances()
		dctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, err = c.Eval(dctx, `for (;;) {}`, "c.js")
		Expect(err).To(MatchError(engine.ErrDeadline), "the spinning cell must stop at its deadline")
		c.Close(ctx)
		Expect(eng.IdleInstances()).To(Equal(idle), "the instance of a stopped VM must be closed, not reused")
	})

	It("reseeds Math.random for every VM", func(ctx SpecContext) {
		t := newTemplate(ctx)
		seen := map[string]bool{}
		for range 4 {
			v, err := fromTemplate(ctx, t).Eval(ctx, `String(Math.random()) + String(Math.random())`, "r.js")
			Expect(err).NotTo(HaveOccurred())
			Expect(seen).NotTo(HaveKey(v), "two VMs from one template drew the same Math.random sequence")
			seen[v] = true
		}
	})

	It("keeps Date.now current", func(ctx SpecContext) {
		t := newTemplate(ctx)
		time.Sleep(20 * time.Millisecond) // the template's boot time must not stick
		now := time.Now().UnixMilli()
		got, err := fromTemplate(ctx, t).Eval(ctx, `String(Date.now())`, "d.js")
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(MatchRegexp(`^\d+$`))
		Expect(parseInt(got)).To(BeNumerically("~", now, 1000), "Date.now in a restored VM must be the current time")
	})

	It("stores a suspended VM as the few chunks it changed (idle suspended cell ≤ 64 KiB)", func(ctx SpecContext) {
		t := newTemplate(ctx)
		vm := fromTemplate(ctx, t)
		Expect(vm.Eval(ctx, `globalThis.p = new Promise((r) => globalThis.r = r); "parked"`, "s.js")).To(Equal("parked"))
		snap, err := vm.Snapshot()
		Expect(err).NotTo(HaveOccurred())
		Expect(snap.Bytes()).To(BeNumerically("<=", 64<<10), "an idle suspended VM's snapshot must be the pages it changed, not its whole memory (%d bytes)", snap.MemoryBytes())
		vm.Close(ctx)
		restored, err := eng.Restore(ctx, snap)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { restored.Close(context.Background()) })
		Expect(restored.Eval(ctx, `p.then((v) => globalThis.got = v); r("resumed"); booted`, "s.js")).To(Equal("yes"))
		_, err = restored.RunJobs(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(restored.Eval(ctx, `got`, "s.js")).To(Equal("resumed"))
	})
})

func parseInt(s string) int64 {
	var n int64
	for _, c := range s {
		n = n*10 + int64(c-'0')
	}
	return n
}
