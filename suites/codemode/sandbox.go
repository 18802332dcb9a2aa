package codemode

import (
	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/gomega"
)

// The run's sandbox policy on nested calls (feature sandbox, CM-NEST-10,
// spec/protocol.md §3 run.prepare sandbox, §4 context): run.prepare gives
// it, and every tool.invoke of the run carries it back in its context.

// sandboxGuest makes one nested call before a held call and one after it,
// so the second leaves from the cell that wait resumed.
const sandboxGuest = `await call("echo", {n: 1}); await call("held", {}); await call("echo", {n: 2}); return "ok";`

var _ = Describe("codemode", "sandbox policy", func() {
	It("CM-NEST-10", "a sandboxed run's nested calls carry its sandbox policy, also after a resume", func(ctx SpecContext) {
		held, release := heldTool()
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: []tools.Tool{held, tools.Echo()},
			Context: protocol.RunContext{Sandbox: &protocol.Sandbox{Mode: protocol.SandboxAll}}})
		w := r.Exec(ctx, Guest(sandboxGuest))
		Expect(w).To(BeWaiting(), "a cell awaiting a held nested call must suspend under timeoutMs 1000; guest code:\n%s", sandboxGuest)
		release()
		final, _ := r.Follow(ctx, w)
		Expect(final).To(CompleteWith("ok"), "the resumed cell must complete; guest code:\n%s", sandboxGuest)
		calls := r.Tools.Calls()
		Expect(calls).To(HaveLen(3), "the cell makes three nested calls (echo, held, echo after the resume): %v", calls)
		for _, c := range calls {
			Expect(cmp.Diff(r.Params.RunContext, c.Context)).To(BeEmpty(),
				"tool.invoke of %s (input %s) must carry the run context run.prepare gave, sandbox {mode: %q} included, as a direct call of the run would (-run.prepare +tool.invoke context); guest code:\n%s",
				c.Tool, c.Input, protocol.SandboxAll, sandboxGuest)
		}
	})

	It("CM-NEST-10", "each run's nested calls carry that run's own sandbox policy", func(ctx SpecContext) {
		const guest = `return (await call("echo", {n: 1})).n;`
		for _, mode := range []string{protocol.SandboxAll, protocol.SandboxOff, protocol.SandboxNonMain} {
			r := NewRun(ctx, RunOptions{CodeMode: true, Tools: []tools.Tool{tools.Echo()},
				Context: protocol.RunContext{Sandbox: &protocol.Sandbox{Mode: mode}}})
			res, _ := r.RunToCompletion(ctx, Guest(guest)) // a target may suspend at the call (§10)
			Expect(res).To(CompleteWith(1), "a cell of the run with sandbox mode %q making one nested call must complete %s; guest code:\n%s", mode, EnvelopeNote, guest)
			calls := r.Tools.Calls()
			Expect(calls).To(HaveLen(1), "the cell makes one nested call: %v", calls)
			Expect(cmp.Diff(r.Params.RunContext, calls[0].Context)).To(BeEmpty(),
				"the nested call of the run with sandbox mode %q must carry that policy in its context (-run.prepare +tool.invoke context)", mode)
		}
	})
})
