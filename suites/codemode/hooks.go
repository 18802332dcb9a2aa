package codemode

import (
	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

// Hooks and approvals on nested calls (features hooks and approvals,
// spec/protocol.md §4.1): the harness answers hook.beforeToolCall and
// approval.request through the run's Gates.

// caughtGuest calls echo and returns what the guest saw: {caught, message}
// when the call rejected, {caught: false} when it ran.
const caughtGuest = `try { await call("echo", {message: "guarded"}); return {caught: false}; }
	catch (e) { return {caught: true, message: String(e && e.message)}; }`

var _ = Describe("codemode", "hooks and approvals", func() {
	It("CM-NEST-02", "a nested call a before_tool_call hook blocks is a catchable guest error and never reaches the tool", func(ctx SpecContext) {
		g := &Gates{Hook: Block("policy forbids echo here", "echo")}
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(nil), Tools: []tools.Tool{tools.Echo()}, Gates: g})
		// A target may suspend at any nested call (protocol.md §10), so the
		// cell is followed through wait, as a model would.
		res, _ := r.RunToCompletion(ctx, Guest(caughtGuest))
		Expect(res).To(BeCompleted(), "the guest catches the blocked call, so the cell must complete")
		Expect(res.ValueAny()).To(HaveKeyWithValue("caught", true), "tools.call of a tool the hook blocks must reject in the guest: %s", res)
		Expect(res.ValueAny()).To(HaveKeyWithValue("message", ContainSubstring("policy forbids echo here")), "the guest's error must carry the hook's reason: %s", res)
		Expect(r.Tools.CallsOf("echo")).To(BeEmpty(), "a blocked nested call must never reach the tool (no tool.invoke)")
		ev := g.HookEventsFor("echo")
		Expect(ev).To(HaveLen(1), "the hook must be asked once about the nested echo call: %v", g.HookEventsSeen())
		Expect(ev[0].ToolKind).To(Equal(protocol.ToolKindNested), "a nested call's hook event has toolKind %q: %+v", protocol.ToolKindNested, ev[0])
		Expect(ev[0].CatalogID).NotTo(BeEmpty(), "a nested call's hook event names its catalog id: %+v", ev[0])
		Expect(ev[0].Input).To(MatchJSON(`{"message":"guarded"}`), "the hook sees the nested call's input: %+v", ev[0])
	})

	It("CM-NEST-02", "the before_tool_call hook still runs for a nested call made after a resume (wait)", func(ctx SpecContext) {
		held, release := heldTool()
		g := &Gates{Hook: Block("blocked after the resume", "echo")}
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: []tools.Tool{held, tools.Echo()}, Gates: g})
		w := r.Exec(ctx, Guest(`await call("held", {}); `+caughtGuest))
		Expect(w).To(BeWaiting(), "a cell awaiting a held nested call must suspend under timeoutMs 1000")
		Expect(g.HookEventsFor("echo")).To(BeEmpty(), "echo is called only after the held call returns")
		release()
		final, _ := r.Follow(ctx, w)
		Expect(final).To(BeCompleted(), "the resumed cell catches the blocked call and completes")
		Expect(final.ValueAny()).To(HaveKeyWithValue("caught", true), "the call made after wait must be blocked by the hook too: %s", final)
		Expect(r.Tools.CallsOf("echo")).To(BeEmpty(), "a nested call made after a resume must still pass the hook; the blocked echo must never reach the tool")
		Expect(g.HookEventsFor("echo")).To(HaveLen(1), "the hook must be asked about the echo call made after the resume: %v", g.HookEventsSeen())
	})

	It("CM-NEST-03", "a nested call whose approval is denied is a catchable guest error and never reaches the tool", func(ctx SpecContext) {
		g := &Gates{ApprovalTools: []string{"echo"}, Approve: func(protocol.ApprovalParams) protocol.ApprovalResult {
			return protocol.ApprovalResult{Decision: protocol.ApprovalDenied, Reason: "the operator said no"}
		}}
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(nil), Tools: []tools.Tool{tools.Echo()}, Gates: g})
		res, _ := r.RunToCompletion(ctx, Guest(caughtGuest)) // suspending at the call is allowed (§10)
		Expect(res).To(BeCompleted(), "the guest catches the denied call, so the cell must complete")
		Expect(res.ValueAny()).To(HaveKeyWithValue("caught", true), "tools.call of a tool whose approval is denied must reject in the guest: %s", res)
		Expect(r.Tools.CallsOf("echo")).To(BeEmpty(), "a denied nested call must never reach the tool")
		Expect(g.ApprovalRequests()).To(ContainElement(HaveField("Tool", "echo")), "the approval policy must be asked about echo")
	})

	It("CM-NEST-03", "a pending approval suspends the cell; once approved, wait resumes it and the call runs once", func(ctx SpecContext) {
		g := &Gates{ApprovalTools: []string{"echo"}, Approve: Pending}
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: []tools.Tool{tools.Echo()}, Gates: g})
		w := r.Exec(ctx, Guest(`const v = (await call("echo", {message: "approved later"})); return v.message;`))
		Expect(w).To(BeWaiting(), "a nested call whose approval is pending must suspend the cell (waiting), not fail or complete: %s", w)
		Expect(r.Tools.CallsOf("echo")).To(BeEmpty(), "a call whose approval is pending must not reach the tool yet")
		g.Decide(protocol.ApprovalApproved, "")
		final, _ := r.Follow(ctx, w)
		Expect(final).To(CompleteWith("approved later"), "once approved, wait must resume the cell and deliver the call's result %s", EnvelopeNote)
		Expect(r.Tools.CallsOf("echo")).To(HaveLen(1), "the approved call must reach the tool exactly once")
	})

	It("CM-NEST-03", "a pending approval that is then denied rejects the call in the resumed cell, catchably", func(ctx SpecContext) {
		g := &Gates{ApprovalTools: []string{"echo"}, Approve: Pending}
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: []tools.Tool{tools.Echo()}, Gates: g})
		w := r.Exec(ctx, Guest(caughtGuest))
		Expect(w).To(BeWaiting(), "a nested call whose approval is pending must suspend the cell: %s", w)
		g.Decide(protocol.ApprovalDenied, "denied after review")
		final, _ := r.Follow(ctx, w)
		Expect(final).To(BeCompleted(), "the resumed cell catches the denied call and completes")
		Expect(final.ValueAny()).To(HaveKeyWithValue("caught", true), "the call denied after pending must reject in the guest: %s", final)
		Expect(r.Tools.CallsOf("echo")).To(BeEmpty(), "a denied nested call must never reach the tool")
	})

	It("CM-NEST-21", "the hook event of the outer exec carries toolKind code_mode_exec and toolInputKind", func(ctx SpecContext) {
		g := &Gates{HookEvents: true}
		langs := []string{"javascript"}
		if Features().Has("typescript") {
			langs = append(langs, "typescript")
		}
		// languages and the exec field language are 000's (001 has neither:
		// its cells are plain JavaScript): under v2 the exec sends code alone,
		// and toolInputKind, when given, is javascript.
		gen1 := Profile() == "v1"
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(Gen1Fields(nil, map[string]any{"languages": langs})), Tools: []tools.Tool{tools.Echo()}, Gates: g})
		if !gen1 {
			langs = []string{"javascript"}
		}
		for _, lang := range langs {
			in := map[string]any{"code": "return 1"}
			if gen1 {
				in["language"] = lang
			}
			Expect(r.ExecInput(ctx, in)).To(CompleteWith(1), "an allowed %s exec must run", lang)
		}
		var execs []protocol.HookParams
		for _, h := range g.HookEventsSeen() {
			if h.ToolKind == protocol.ToolKindCodeModeExec {
				execs = append(execs, h)
			}
		}
		Expect(execs).To(HaveLen(len(langs)), "each exec must raise one hook event with toolKind %q: %v", protocol.ToolKindCodeModeExec, g.HookEventsSeen())
		for i, lang := range langs {
			if gen1 || execs[i].ToolInputKind != "" {
				Expect(execs[i].ToolInputKind).To(Equal(lang), "the %s exec's hook event must carry toolInputKind %q: %+v", lang, lang, execs[i])
			}
			Expect(execs[i].Tool).To(Equal("exec"), "the code mode exec's hook event names the tool exec: %+v", execs[i])
		}
	})
})
