package engine_test

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/codemode-conformance/codemode/reference/engine"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// bigAt is a setup that makes x a BigInt of all ones, 1/part of the size
// cap less a little (an operation's temporaries take a few limbs more).
func bigAt(part int) string {
	return fmt.Sprintf("globalThis.x = (1n << %dn) - 1n", engine.BigIntMaxBits/part-64)
}

// A wasm call running native code cannot be preempted by the Go runtime, so
// every stop-the-world (each GC) waits for it: a VM that keeps running past
// its deadline freezes the whole process, not just its own cell.
var _ = Describe("native bulk loops past their deadline do not freeze the process (CM-LIM-01)", func() {
	DescribeTable("a concurrent cell and a GC complete while the bulk cell is being stopped",
		func(ctx SpecContext, setup, src string) {
			before := eng.LiveVMs()
			bulkVM, err := eng.NewVM(ctx, engine.Limits{MemoryBytes: 128 << 20})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { bulkVM.Close(context.Background()) })
			other := newVM(ctx)
			_, err = bulkVM.Eval(ctx, setup, "setup.js")
			Expect(err).NotTo(HaveOccurred(), "setup %s", setup)

			dctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			defer cancel()
			deadline, _ := dctx.Deadline()
			type ended struct {
				err error
				at  time.Time
			}
			bulk := make(chan ended, 1)
			go func() {
				_, err := bulkVM.Eval(dctx, src, "bulk.js")
				bulk <- ended{err, time.Now()}
			}()
			trivial := make(chan ended, 1)
			context.AfterFunc(dctx, func() {
				runtime.GC()
				v, err := other.Eval(ctx, `40 + 2`, "trivial.js")
				if err == nil && v != "42" {
					err = fmt.Errorf("the trivial cell returned %q, want 42", v)
				}
				trivial <- ended{err, time.Now()}
			})

			// Each bound is generous (seconds): a frozen process misses it by
			// the whole native run, tens of seconds for these loops.
			var b, t ended
			Eventually(bulk).WithTimeout(engine.Grace+10*time.Second).Should(Receive(&b), "%s must end", src)
			Expect(b.err).To(MatchError(engine.ErrDeadline), "%s must end at its deadline", src)
			Expect(b.err).NotTo(MatchError(engine.ErrAbandoned), "%s must be stopped, not abandoned while it keeps running native code", src)
			Eventually(trivial).WithTimeout(2*time.Second).Should(Receive(&t), "a trivial cell and a GC started at the deadline of %s must end within 2 s of its result", src)
			Expect(t.err).NotTo(HaveOccurred(), "the trivial cell next to %s", src)
			Expect(t.at.Sub(deadline)).To(BeNumerically("<", engine.Grace+2*time.Second),
				"a trivial cell and a GC started at the deadline of %s were held up: the process was frozen", src)
			bulkVM.Close(context.Background())
			Eventually(eng.LiveVMs).WithTimeout(2*time.Second).Should(Equal(before+1), "no VM of %s may keep running", src)
		},
		// Each runs natively for tens of seconds when nothing stops it, and
		// a bytecode loop around a slow built-in polls the interrupt handler
		// only every 10000 iterations.
		Entry("String.prototype.repeat of a two-character string", ``, `for (let i = 0; i < 40; i++) "ab".repeat(2 ** 23)`),
		Entry("String.prototype.repeat of a wide string", ``, `for (let i = 0; i < 40; i++) "€€".repeat(2 ** 22)`),
		Entry("String.prototype.padEnd", ``, `for (let i = 0; i < 40; i++) "".padEnd(2 ** 24, "xy")`),
		Entry("single-character fills in a bytecode loop", ``, `for (let i = 0; i < 4000; i++) "s".repeat(1 << 18)`),
		Entry("Array.prototype.join of a dense array", `globalThis.a = new Array(2 ** 21).fill("x")`, `for (let i = 0; i < 40; i++) a.join("ab")`),
		// 2^18 elements: sort's first pass (every element to a string) has no
		// listener (ENGINE.md "Native bulk loops"), so a larger array would
		// outlast the grace on a loaded machine before the swaps are reached.
		Entry("Array.prototype.sort of numbers", `globalThis.a = Array.from({length: 2 ** 18}, (_, i) => (i * 7919) % 2 ** 18)`, `for (let i = 0; i < 400; i++) { a.sort(); a.reverse() }`),
		Entry("TypedArray sort", `globalThis.t = new Int32Array(2 ** 21); for (let i = 0; i < t.length; i++) t[i] = (i * 7919) % t.length`, `for (let i = 0; i < 40; i++) { t.sort(); t.reverse(); t[0] = i }`),
		// Each quadratic BigInt operation is one native call that never
		// calls out: the size cap (bigint.go) keeps each one short, and the
		// listener on js_bigint_new stops the next one (the bytecode loop
		// around them polls the handler only every 10000 iterations).
		// Loops no listener reached, polled by looppoll.go: a quadratic
		// string search and the parser.
		Entry("String.prototype.indexOf of a near-miss needle", `globalThis.h = "a".repeat(1 << 22); globalThis.n = "a".repeat(1 << 21) + "b"`, `h.indexOf(n)`),
		Entry("eval of a 4 MiB expression", `globalThis.src = "0" + "+1".repeat(1 << 21)`, `eval(src)`),
		Entry("BigInt to decimal at the size cap", bigAt(1), `for (;;) String(x)`),
		Entry("BigInt multiplication at the size cap", bigAt(2), `for (;;) x * x`),
		Entry("BigInt division near the size cap", fmt.Sprintf("globalThis.x = (1n << %dn) - 1n", engine.BigIntMaxBits*7/8)+`; globalThis.y = (1n << BigInt(`+fmt.Sprint(engine.BigIntMaxBits/2)+`)) - 3n`, `for (;;) x / y`),
		Entry("BigInt exponentiation at the size cap", ``, `for (;;) 3n ** BigInt(`+fmt.Sprint(engine.BigIntMaxBits*5/8)+`)`),
		Entry("BigInt from a decimal string near the size cap", `globalThis.s = "9".repeat(`+fmt.Sprint(engine.BigIntMaxBits/4)+`)`, `for (;;) BigInt(s)`),
	)
})
