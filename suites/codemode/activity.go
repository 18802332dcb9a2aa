package codemode

import (
	"errors"
	"slices"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/creachadair/jrpc2"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/gomega"
)

// Nested activity (feature nested-activity, page 001 "嵌套工具执行";
// spec/protocol.md §4.2): completed nested calls persist as bounded,
// display-only activity with their original ids across a reload, the
// provider replay holds only real model calls (CM-NEST-17), nested ids
// derive from the cell's replay identity and starts are not persisted
// (CM-NEST-18), and a before_message_write hook that suppresses a row hides
// it from agent-end hooks without undoing the call (CM-NEST-19). Every
// observation goes through run.trajectory's views, the harness's own
// tool.invoke records and the message hooks; nothing waits on a clock.
// Partial updates (streaming) cannot be driven yet (feature streaming).

// activityRow is what the specs compare of one row of a view.
type activityRow struct {
	ToolCallID, ParentToolCallID, Tool, CatalogID, Status string
	DisplayOnly                                           bool
}

func rowsOf(calls []protocol.TrajectoryCall) []activityRow {
	out := []activityRow{}
	for _, c := range calls {
		out = append(out, activityRow{ToolCallID: c.ToolCallID, ParentToolCallID: c.ParentToolCallID, Tool: c.Tool,
			CatalogID: c.CatalogID, Status: c.Status, DisplayOnly: c.DisplayOnly})
	}
	return out
}

// invokedRow is the activity row a completed tool.invoke the harness answered
// must have: its ids as they arrived, status error for the fail tool.
func invokedRow(c protocol.InvokeParams) activityRow {
	status := "ok"
	if c.Tool == "fail" {
		status = "error"
	}
	return activityRow{ToolCallID: c.ToolCallID, ParentToolCallID: c.ParentToolCallID, Tool: c.Tool, CatalogID: c.CatalogID, Status: status, DisplayOnly: true}
}

// replayRows are the model calls steps made: what the replay view must hold
// (ids, tools, nothing nested), statuses left out.
func replayRows(steps []Result) []activityRow {
	out := []activityRow{}
	for i, st := range steps {
		tool := "wait"
		if i == 0 {
			tool = "exec"
		}
		out = append(out, activityRow{ToolCallID: st.ToolCallID, Tool: tool})
	}
	return out
}

func withoutStatus(rows []activityRow) []activityRow {
	out := slices.Clone(rows)
	for i := range out {
		out[i].Status = ""
	}
	return out
}

func idsOf(calls []protocol.InvokeParams) []string {
	out := []string{}
	for _, c := range calls {
		out = append(out, c.ToolCallID)
	}
	return out
}

func rowIDs(calls []protocol.TrajectoryCall) []string {
	out := []string{}
	for _, c := range calls {
		out = append(out, c.ToolCallID)
	}
	return out
}

var _ = Describe("codemode", "nested activity", func() {
	It("CM-NEST-17", "completed nested calls persist as display-only activity with their original parent and call ids across a reload; the replay view holds only the exec and wait calls", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 2000}), Tools: tools.Standard()})
		res, steps := r.RunToCompletion(ctx, Guest(`await call("echo", {m: "before"});
await call("slow", {ms: 1800, tag: "suspends"});
let failed = "no";
try { await call("fail", {message: "on purpose"}); } catch (e) { failed = "caught"; }
await call("add", {a: 1, b: 2});
return failed;`))
		Expect(res).To(CompleteWith("caught"), "the cell must complete, the fail tool's error caught")
		Expect(len(steps)).To(BeNumerically(">=", 2), "the slow call must suspend the cell at least once, so that nested calls fall under exec and wait: %s", res)
		want := []activityRow{}
		for _, c := range r.Tools.Calls() {
			want = append(want, invokedRow(c))
		}
		Expect(want).To(HaveLen(4), "the harness must have answered the four nested calls:\n%s", r.Transcript())

		act := r.TrajectoryView(ctx, protocol.TrajectoryViewActivity, false)
		Expect(cmp.Diff(want, rowsOf(act.Calls))).To(BeEmpty(),
			"run.trajectory view activity must hold one displayOnly row per completed nested call, with the toolCallId and parentToolCallId of its tool.invoke and its status (-want +got)\nguest code:\n%s", res.GuestCode)
		replay := r.TrajectoryView(ctx, protocol.TrajectoryViewReplay, false)
		Expect(cmp.Diff(replayRows(steps), withoutStatus(rowsOf(replay.Calls)))).To(BeEmpty(),
			"run.trajectory view replay must hold exactly the model's exec and wait calls, in order: no nested call and no synthetic model turn (-want +got)")

		reAct := r.TrajectoryView(ctx, protocol.TrajectoryViewActivity, true)
		Expect(cmp.Diff(act.Calls, reAct.Calls)).To(BeEmpty(), "after reload: true the activity must come back unchanged from the persisted transcript, ids included (-before +after)")
		reReplay := r.TrajectoryView(ctx, protocol.TrajectoryViewReplay, true)
		Expect(cmp.Diff(replay.Calls, reReplay.Calls)).To(BeEmpty(), "after reload: true the replay view must come back unchanged (-before +after)")
	})

	It("CM-NEST-17", "activity is bounded: a nested call's 32 KiB input is shown in at most 8 KiB, while the tool got all of it", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(nil), Tools: tools.Standard()})
		res, _ := r.RunToCompletion(ctx, Guest(`const r = await call("echo", {pad: "x".repeat(32768)}); return callValue(id("echo"), r).pad.length;`))
		Expect(res).To(CompleteWith(32768), "the echo tool must return the whole input %s", EnvelopeNote)
		calls := r.Tools.Calls()
		Expect(calls).To(HaveLen(1), "one nested call")
		Expect(len(calls[0].Input)).To(BeNumerically(">", 32768), "the tool must get the whole input")
		act := r.TrajectoryView(ctx, protocol.TrajectoryViewActivity, true)
		Expect(cmp.Diff([]activityRow{invokedRow(calls[0])}, rowsOf(act.Calls))).To(BeEmpty(), "the activity must hold the call's row (-want +got)")
		Expect(len(act.Calls[0].Input)).To(BeNumerically("<=", 8192),
			"the row's input must be bounded to 8 KiB of JSON (display data; OpenClaw replaces a larger one with a marker), got %d bytes", len(act.Calls[0].Input))
	})

	It("CM-NEST-17", "the activity of an earlier run of the same session stays in the session's history under its own ids", func(ctx SpecContext) {
		first := NewRun(ctx, RunOptions{CodeMode: Enabled(nil), Tools: tools.Standard()})
		res, _ := first.RunToCompletion(ctx, Guest(`await call("echo", {run: "first"}); return 1;`))
		Expect(res).To(CompleteWith(1), "the first run's cell must complete")
		second := NewRun(ctx, RunOptions{CodeMode: Enabled(nil), Tools: tools.Standard(), Context: first.Params.RunContext})
		res, _ = second.RunToCompletion(ctx, Guest(`await call("add", {a: 1, b: 1}); return 2;`))
		Expect(res).To(CompleteWith(2), "the second run's cell must complete")
		want := []activityRow{invokedRow(first.Tools.Calls()[0]), invokedRow(second.Tools.Calls()[0])}
		act := second.TrajectoryView(ctx, protocol.TrajectoryViewActivity, true)
		Expect(cmp.Diff(want, rowsOf(act.Calls))).To(BeEmpty(),
			"the second run of session %q must see the first run's activity, then its own, with their original ids (-want +got)", first.Params.SessionID)
	})

	It("CM-NEST-18", "an exec call id reused in a later assistant response gets nested ids that collide with none of the earlier ones; a replay of the same call in the same run and response gets the same ids", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(nil), Tools: tools.Standard()})
		code := Guest(`await call("echo", {n: 1}); await call("add", {a: 1, b: 2}); return "ok";`)
		round := func(mc ModelCall) []protocol.InvokeParams {
			before := len(r.Tools.Calls())
			res, _ := r.FollowAs(ctx, r.ExecAs(ctx, code, mc), mc.AssistantResponseID)
			Expect(res).To(CompleteWith("ok"), "exec %+v must complete", mc)
			return r.Tools.Calls()[before:]
		}
		first := round(ModelCall{ToolCallID: "call_1", AssistantResponseID: "resp-1"})
		reused := round(ModelCall{ToolCallID: "call_1", AssistantResponseID: "resp-2"})
		replayed := round(ModelCall{ToolCallID: "call_1", AssistantResponseID: "resp-1"})
		for _, set := range [][]protocol.InvokeParams{first, reused, replayed} {
			Expect(set).To(HaveLen(2), "each exec must make its two nested calls:\n%s", r.Transcript())
		}
		for _, id := range idsOf(reused) {
			Expect(idsOf(first)).NotTo(ContainElement(id),
				"exec call id call_1 reused in response resp-2 must get nested ids that do not collide with those of resp-1: %v vs %v\nguest code:\n%s", idsOf(first), idsOf(reused), code)
		}
		Expect(cmp.Diff(idsOf(first), idsOf(replayed))).To(BeEmpty(),
			"replaying call_1 of response resp-1 in the same run must give the same nested ids, in the same order (-first +replay)")
		act := r.TrajectoryView(ctx, protocol.TrajectoryViewActivity, true)
		for _, c := range append(first, reused...) {
			Expect(rowsOf(act.Calls)).To(ContainElement(invokedRow(c)),
				"the activity must keep the rows of both responses, each under its original ids; missing %s (%s)", c.ToolCallID, c.Tool)
		}
	})

	It("CM-NEST-18", "the same exec call ids with other input are another call, not a replay: its nested ids collide with none of the first call's, and the first call's activity stays", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(nil), Tools: tools.Standard()})
		mc := ModelCall{ToolCallID: "call_1", AssistantResponseID: "resp-1"}
		round := func(code string) []protocol.InvokeParams {
			before := len(r.Tools.Calls())
			res, _ := r.FollowAs(ctx, r.ExecAs(ctx, code, mc), mc.AssistantResponseID)
			Expect(res).To(CompleteWith("ok"), "exec %+v must complete; guest code:\n%s", mc, code)
			return r.Tools.Calls()[before:]
		}
		firstCode := Guest(`await call("echo", {transfer: "100 to alice"}); return "ok";`)
		otherCode := Guest(`await call("echo", {transfer: "9999 to mallory"}); return "ok";`)
		first, other := round(firstCode), round(otherCode)
		Expect(first).To(HaveLen(1), "the first exec must make its nested call:\n%s", r.Transcript())
		Expect(other).To(HaveLen(1), "the exec with other code must make its nested call:\n%s", r.Transcript())
		Expect(idsOf(first)).NotTo(ContainElement(other[0].ToolCallID),
			"call_1 of resp-1 sent again with other code is another call: its nested id must not collide with the first call's (%v vs %v)\nfirst code:\n%s\nother code:\n%s", idsOf(first), idsOf(other), firstCode, otherCode)
		act := r.TrajectoryView(ctx, protocol.TrajectoryViewActivity, true)
		for _, c := range append(first, other...) {
			Expect(rowsOf(act.Calls)).To(ContainElement(invokedRow(c)),
				"the activity must keep the rows of both calls under their original ids; missing %s (input %s), got %v", c.ToolCallID, c.Input, rowIDs(act.Calls))
		}
	})

	It("CM-NEST-18", "a replay of an exec call whose cell is still in flight never puts two in-flight nested calls under one id: the target refuses it (-32602) or gives it other nested ids", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 1000}), Tools: tools.Standard()})
		mc := ModelCall{ToolCallID: "call_1", AssistantResponseID: "resp-1"}
		code := Guest(`await call("slow", {ms: 3000, tag: "in flight"}); return "done";`)
		first := r.ExecAs(ctx, code, mc)
		Expect(first.Status).To(Equal(result.StatusWaiting), "the slow call must suspend the cell: %s", first)
		second, err := r.ExecAsOrError(ctx, code, mc)
		if err != nil {
			var je *jrpc2.Error
			Expect(errors.As(err, &je) && je.Code == jrpc2.InvalidParams).To(BeTrue(),
				"a replay of call_1 while its cell is in flight may be refused, but with -32602 (invalid params), got %v", err)
		} else {
			slow := r.Tools.CallsOf("slow")
			Expect(slow).To(HaveLen(2), "the accepted replay must make its own slow call:\n%s", r.Transcript())
			Expect(slow[1].ToolCallID).NotTo(Equal(slow[0].ToolCallID),
				"call_1 of resp-1 was replayed while its first cell's nested call %s was still in flight: the replay's nested call got the same id, two in-flight tool.invoke under one id\nguest code:\n%s", slow[0].ToolCallID, code)
			final, _ := r.FollowAs(ctx, second, mc.AssistantResponseID)
			Expect(final).To(CompleteWith("done"), "the accepted replay's cell must complete after wait")
		}
		final, _ := r.FollowAs(ctx, first, mc.AssistantResponseID)
		Expect(final).To(CompleteWith("done"), "the first cell must complete after wait")
	})

	It("CM-NEST-18", "start events are not persisted: a nested call still in flight has no activity row until it completes", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 1000}), Tools: tools.Standard()})
		res := r.Exec(ctx, Guest(`await call("echo", {m: "done first"});
await call("slow", {ms: 3000, tag: "in flight"});
return "done";`))
		Expect(res.Status).To(Equal(result.StatusWaiting), "the slow call must suspend the cell: %s", res)
		Expect(res.PendingToolCalls).NotTo(BeEmpty(), "the waiting result must list the call in flight: %s", res)
		act := r.TrajectoryView(ctx, protocol.TrajectoryViewActivity, false)
		echo := r.Tools.CallsOf("echo")
		Expect(echo).To(HaveLen(1), "the echo call must have been made")
		Expect(rowsOf(act.Calls)).To(ContainElement(invokedRow(echo[0])), "the completed echo call must already have its row")
		for _, p := range res.PendingToolCalls {
			Expect(rowIDs(act.Calls)).NotTo(ContainElement(p.ID),
				"the call %s (%s) is still in flight: its start must not be persisted as activity, got rows %v", p.ID, p.ToolID, rowIDs(act.Calls))
		}
		final, _ := r.Follow(ctx, res)
		Expect(final).To(CompleteWith("done"), "the cell must complete after wait")
		slow := r.Tools.CallsOf("slow")
		Expect(slow).To(HaveLen(1), "one slow call")
		act = r.TrajectoryView(ctx, protocol.TrajectoryViewActivity, true)
		Expect(rowsOf(act.Calls)).To(ContainElement(invokedRow(slow[0])), "once completed, the slow call must have exactly its row")
		Expect(act.Calls).To(HaveLen(2), "one row per completed call, none for its start: %v", rowsOf(act.Calls))
	})

	It("CM-NEST-19", "a row suppressed by before_message_write is absent from the activity and from agent-end hooks, while the call's effects stand and it counts as executed", func(ctx SpecContext) {
		g := &Gates{AgentEnd: true, MessageWrite: func(p protocol.MessageWriteParams) protocol.MessageWriteResult {
			if p.Row.Tool == "add" {
				return protocol.MessageWriteResult{Decision: protocol.MessageSuppress}
			}
			return protocol.MessageWriteResult{Decision: protocol.MessageWrite}
		}}
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(nil), Tools: tools.Standard(), Gates: g})
		res, _ := r.RunToCompletion(ctx, Guest(`const s = (await call("add", {a: 2, b: 3})).sum;
await call("echo", {m: "kept"});
return s;`))
		Expect(res).To(CompleteWith(5), "the suppressed call's result must still reach the guest %s", EnvelopeNote)
		add, echo := r.Tools.CallsOf("add"), r.Tools.CallsOf("echo")
		Expect(add).To(HaveLen(1), "the add tool must have run once (its execution stands)")
		Expect(echo).To(HaveLen(1), "the echo tool must have run once")
		var offered []string
		for _, w := range g.MessageWrites() {
			offered = append(offered, w.Row.ToolCallID)
		}
		Expect(offered).To(ConsistOf(add[0].ToolCallID, echo[0].ToolCallID), "hook.beforeMessageWrite must be asked about each completed nested call's row")

		for _, reload := range []bool{false, true} {
			act := r.TrajectoryView(ctx, protocol.TrajectoryViewActivity, reload)
			Expect(cmp.Diff([]activityRow{invokedRow(echo[0])}, rowsOf(act.Calls))).To(BeEmpty(),
				"the activity (reload %v) must hold the written row and not the suppressed one (-want +got)", reload)
		}

		r.End(ctx)
		ends := g.AgentEnds()
		Expect(ends).To(HaveLen(1), "run.end must send hook.agentEnd once before it answers")
		end := ends[0]
		Expect(cmp.Diff([]activityRow{invokedRow(echo[0])}, rowsOf(end.Activity))).To(BeEmpty(),
			"hook.agentEnd's activity is what finalisation reads from the transcript: the suppressed row must be absent (-want +got)")
		Expect(end.ExecutedToolCallIDs).To(ConsistOf(add[0].ToolCallID, echo[0].ToolCallID),
			"hook.agentEnd must count the suppressed call as executed: suppressing its display row undoes nothing")
	})
})
