package limits

import (
	"context"
	"fmt"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
)

// nativeTimeoutMs is the timeoutMs of the native-operation cells, and
// nativeBound how long after it was sent such a cell must have ended: "about
// timeoutMs" with room for a loaded machine, and far below what any of the
// operations takes when nothing stops it (QuickJS needs minutes to hours).
const (
	nativeTimeoutMs = 500
	nativeBound     = 10 * time.Second
)

// nativeCase is one cell whose work happens inside a single built-in call
// (C code of the engine), so an engine that checks its deadline only in the
// bytecode loop never gets to check it.
type nativeCase struct {
	name, code string
	// memory is memoryLimitBytes for the cell's run (0: the default).
	memory int
	// allowed is every outcome CM-LIM-01 (with CM-LIM-02) allows, and why.
	allowed types.GomegaMatcher
	why     string
}

// timeoutOr allows failed/timeout, or a completed cell with the right value
// for an engine that really finishes the work within the bound (a sparse
// array whose holes it skips, a linear-time regular expression engine):
// finishing is no infinite loop.
func timeoutOr(value any) types.GomegaMatcher {
	return Or(BeFailedWith(result.CodeTimeout), CompleteWith(value))
}

// timeoutOrOOM allows failed/timeout or, where the memory limit fires first,
// failed/memory_limit_exceeded.
func timeoutOrOOM() types.GomegaMatcher {
	return Or(BeFailedWith(result.CodeTimeout), BeFailedWith(result.CodeMemoryLimitExceeded))
}

var _ = Describe("limits", "deadlines inside native operations", func() {
	It("CM-LIM-01", "the deadline holds inside built-in operations that never return to the bytecode loop, and the runtime keeps serving", func(ctx SpecContext) {
		// 2^32-1 is the largest array length: the array holds no element
		// and no memory, but a built-in that visits every index runs for
		// hours. In order: a failure names the first case that broke.
		const holes = `const a = []; a.length = 2 ** 32 - 1; `
		cases := []nativeCase{
			{name: "Array.prototype.join over 2^32-1 holes", code: holes + `return a.join("").length;`,
				allowed: timeoutOr(0), why: "timeout, or 0 from an engine that skips the holes"},
			{name: "Array.prototype.includes over 2^32-1 holes", code: holes + `return a.includes(1);`,
				allowed: timeoutOr(false), why: "timeout, or false from an engine that skips the holes"},
			{name: "Array.prototype.sort of 2^32-1 holes", code: holes + `a.sort(); return a.length;`,
				allowed: timeoutOr(4294967295), why: "timeout, or the length 4294967295 from an engine that skips the holes"},
			{name: "a catastrophic regular expression inside String.prototype.replace", code: `return ("a".repeat(30) + "!").replace(/(a+)+b/g, "x").length;`,
				allowed: timeoutOr(31), why: "timeout, or 31 from a linear-time regular expression engine"},
			// The string would be 8 GiB: it cannot complete. The memory
			// limit is high so that reaching it takes far longer than the
			// bound when nothing stops the join; either limit may fire.
			{name: "Array.prototype.join building a string towards a 256 MiB memory limit", code: holes + `return a.join("ab").length;`, memory: 256 << 20,
				allowed: timeoutOrOOM(), why: "timeout, or memory_limit_exceeded where the memory limit fires first (the string would be 8 GiB)"},
			// One built-in call writing 128 MiB: an engine that does it
			// within the deadline completes with the right length.
			{name: "String.prototype.repeat building a 128 MiB string", code: `return "ab".repeat(2 ** 26).length;`, memory: 256 << 20,
				allowed: Or(timeoutOrOOM(), CompleteWith(134217728)), why: "timeout, memory_limit_exceeded where the memory limit fires first, or 134217728 from an engine that builds the string within the deadline"},
			// Strings built while 14 MiB of a 16 MiB memory limit are in use:
			// the deadline must still end the cell when every allocation is
			// near the limit (an engine with more overhead runs out first).
			{name: "strings built with 14 MiB of a 16 MiB memory limit in use", memory: 16 << 20,
				code:    `const keep = []; for (let i = 0; i < 14; i++) keep.push(new Uint8Array(1 << 20)); for (let n = 0; ; n++) keep[14] = "s".repeat(1 << 18) + n;`,
				allowed: timeoutOrOOM(), why: "timeout, or memory_limit_exceeded where the memory limit fires first"},
		}
		for _, c := range cases {
			cfg := map[string]any{"timeoutMs": nativeTimeoutMs}
			if c.memory != 0 {
				cfg["memoryLimitBytes"] = c.memory
			}
			r := NewRun(ctx, RunOptions{CodeMode: Enabled(cfg), Tools: []tools.Tool{tools.Echo()}})
			res := endsWithin(r, c.code, nativeBound,
				fmt.Sprintf("%s: the cell must end within %s of being sent (timeoutMs %d)", c.name, nativeBound, nativeTimeoutMs))
			Expect(res).To(c.allowed, "%s: CM-LIM-01 allows %s\n%s", c.name, c.why, res)
			Expect(r.Exec(ctx, `return 40 + 2;`)).To(CompleteWith(42), "after %s the same run must still serve a trivial cell", c.name)
			other := NewRun(ctx, RunOptions{CodeMode: true, Tools: []tools.Tool{tools.Echo()}})
			Expect(other.Exec(ctx, `return 40 + 2;`)).To(CompleteWith(42), "after %s a new run must be served", c.name)
		}
	}, HangIsFailure, Serial)
})

// endsWithin runs code in r to completion (following waits) and returns its
// final result, failing the spec with what (and the guest code) when that
// takes longer than bound. The call's own deadline is a second past bound:
// a target still busy then is unresponsive, so the harness kills it (a
// failure under HangIsFailure) rather than wait for run.end, and the spec
// waits for the call to end before its runs are ended.
func endsWithin(r *Run, code string, bound time.Duration, what string) Result {
	cctx, cancel := context.WithTimeout(context.Background(), bound+time.Second)
	done := make(chan Result, 1)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer GinkgoRecoverNoop()
		res, _ := r.RunToCompletion(cctx, code)
		done <- res
	}()
	ginkgo.DeferCleanup(func() { <-ended; cancel() })
	var res Result
	Eventually(done).WithTimeout(bound).Should(Receive(&res), "%s\nguest code:\n%s", what, code)
	return res
}
