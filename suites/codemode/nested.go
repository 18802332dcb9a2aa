package codemode

import (
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var _ = Describe("codemode", "nested tool execution", func() {
	It("CM-NEST-01", "nested calls carry the agent, session, sender and channel context", func(ctx SpecContext) {
		rc := protocol.RunContext{AgentID: "agent-nest-01", SessionID: "session-nest-01", SessionKey: "agent:agent-nest-01:session-nest-01", SenderID: "sender-42", Channel: "telegram"}
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard(), Context: rc})
		res, steps := r.RunToCompletion(ctx, Guest(`await call("echo", {n: 1}); await Promise.all([dispatch("echo", {n: 2}), dispatch("add", {a: 1, b: 2})]); return "ok";`))
		Expect(res).To(CompleteWith("ok"), "a cell making three nested calls must complete")
		parents := []string{}
		for _, st := range steps {
			parents = append(parents, st.ToolCallID)
		}
		calls := r.Tools.Calls()
		Expect(calls).To(HaveLen(3), "the cell makes exactly three nested calls: %v", calls)
		ids := map[string]bool{}
		for _, c := range calls {
			Expect(c.Context).To(Equal(rc), "tool.invoke of %s carried the wrong run context", c.Tool)
			Expect(c.Run).To(Equal(r.ID), "tool.invoke of %s must name the run that owns the cell", c.Tool)
			Expect(c.ParentToolCallID).To(BeElementOf(parents), "a nested call must name the exec/wait call it was made under")
			Expect(ids).NotTo(HaveKey(c.ToolCallID), "nested call ids must be unique")
			ids[c.ToolCallID] = true
		}
	})

	It("CM-NEST-04", "parallel nested calls run concurrently up to maxPendingToolCalls", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxPendingToolCalls": 6, "timeoutMs": 10000}), Tools: tools.Standard()})
		res, _ := r.RunToCompletion(ctx, Guest(`const ps = []; for (let i = 0; i < 6; i++) ps.push(dispatch("slow", {ms: 400, tag: "t" + i}));
			return (await Promise.all(ps)).map((x) => callValue(id("slow"), x).tag);`))
		Expect(res).To(CompleteWith([]string{"t0", "t1", "t2", "t3", "t4", "t5"}), "six parallel slow calls must all complete, in the order they were made %s", EnvelopeNote)
		Expect(r.Tools.MaxConcurrent()).To(Equal(6), "all 6 calls (= maxPendingToolCalls) must be in flight at once")
	})

	It("CM-NEST-08", "abort cancels in-flight nested calls", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 2000}), Tools: tools.Standard()})
		res := r.Exec(ctx, Guest(`const ps = [dispatch("slow", {ms: 60000, tag: "a"}), dispatch("slow", {ms: 60000, tag: "b"})]; await Promise.all(ps); return "finished";`))
		Expect(res).To(BeWaiting(), "two 60 s calls cannot finish within one exec")
		Eventually(r.Tools.Active).WithTimeout(5*time.Second).Should(Equal(2), "both nested calls reached the harness")
		Expect(r.Tools.Canceled()).To(BeZero(), "nothing may be canceled before the abort")
		r.Abort(ctx)
		Eventually(r.Tools.Canceled).WithTimeout(5*time.Second).Should(Equal(2), "run.abort must cancel both in-flight nested calls (tool.cancel)")
		Expect(r.Tools.Active()).To(BeZero(), "no nested call may still run after run.abort")
		after := r.Wait(ctx, res.RunID)
		Expect(after).To(BeFailed(), "an aborted run cannot be resumed")
		// Whether a later exec of an aborted run may run is not in the text or
		// the seed (it cancels in-flight calls): not judged (verdict audit A8).
	})

	It("CM-NEST-08", "the end of the run (its catalog closing) cancels its in-flight nested calls", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 2000}), Tools: tools.Standard()})
		res := r.Exec(ctx, Guest(`await Promise.all([dispatch("slow", {ms: 60000, tag: "a"}), dispatch("slow", {ms: 60000, tag: "b"})]); return "finished";`))
		Expect(res).To(BeWaiting(), "two 60 s calls cannot finish within one exec")
		Eventually(r.Tools.Active).WithTimeout(5*time.Second).Should(Equal(2), "both nested calls reached the harness")
		Expect(r.Tools.Canceled()).To(BeZero(), "nothing may be canceled before the run ends")
		r.End(ctx)
		Eventually(r.Tools.Canceled).WithTimeout(5*time.Second).Should(Equal(2), "run.end closes the run catalog and must cancel both in-flight nested calls (tool.cancel)")
		Expect(r.Tools.Active()).To(BeZero(), "no nested call may still run after run.end")
	})

	It("CM-NEST-09", "a nested call the guest never awaits is waited for or reported, never silently lost", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 3000}), Tools: tools.Standard()})
		for i, code := range []string{
			`dispatch("slow", {ms: 200, tag: "fire-and-forget"}); return "returned early";`,
			`dispatch("fail", {message: "nobody awaited me"}); return "returned early";`,
		} {
			res := r.Exec(ctx, Guest(code))
			switch res.Status {
			case "completed":
				// The target waited for the call before completing the cell.
				Expect(r.Tools.Calls()).To(HaveLen(i+1), "the unawaited call was dropped")
				Expect(r.Tools.Finished()).To(Equal(i+1), "the cell completed while the unawaited call was still running")
				Expect(r.Tools.Canceled()).To(BeZero(), "the unawaited call was canceled instead of awaited")
			case "waiting":
				Expect(res.PendingToolCalls).NotTo(BeEmpty(), "a waiting cell must report the outstanding call")
				final, _ := r.Follow(ctx, res)
				Expect(final.Status).NotTo(Equal("waiting"), "following the waiting cell must end it: %s", final.Raw)
				Expect(r.Tools.Finished()).To(Equal(i+1), "the unawaited call never finished")
			case "failed":
				Expect(r.Tools.Calls()).To(HaveLen(i+1), "the unawaited call was dropped")
				Expect(res.Error).NotTo(BeEmpty(), "a failure must report the unawaited call")
			}
		}
	})
})
