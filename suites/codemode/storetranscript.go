package codemode

import (
	"strings"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/gomega"
)

// The session store's transcript entries (feature session-store, page 001
// "会话存储持久性"; spec/protocol.md §5.7): a commit appends one
// openclaw.code-mode-store entry, which run.trajectory reports.

// storeEntryRow is what the specs compare of one entry: values as canonical
// JSON.
type storeEntryRow struct {
	Type, ToolCallID, Branch string
	Sets                     map[string]string
	Deletes                  []string
}

// storeEntries returns the transcript entries of run r.
func storeEntries(ctx SpecContext, r *Run) []storeEntryRow {
	var tr protocol.TrajectoryResult
	Expect(T().Call(ctx, protocol.MethodRunTrajectory, protocol.RunParams{Run: r.ID}, &tr)).To(Succeed(), "run.trajectory failed at the protocol level")
	rows := []storeEntryRow{}
	for _, e := range tr.Entries {
		row := storeEntryRow{Type: e.Type, ToolCallID: e.ToolCallID, Branch: e.Branch, Sets: map[string]string{}, Deletes: append([]string{}, e.Deletes...)}
		for k, v := range e.Sets {
			row.Sets[k] = canonical(v)
		}
		rows = append(rows, row)
	}
	return rows
}

var _ = Describe("codemode", "session store transcript", func() {
	It("CM-STO-05", "each committing cell appends one openclaw.code-mode-store transcript entry with its sets and deletes; other cells append none", func(ctx SpecContext) {
		RequireFeature("trajectory", "CM-STO-05 reads the transcript entries through run.trajectory")
		r := sessionRun(ctx, freshSession(), &protocol.Session{Branch: "main"}, true)
		first := r.Exec(ctx, `await store("a", {n: 1}); await store("b", 2); return 1;`)
		Expect(first).To(CompleteWith(1), "a cell that stores and completes")
		second := r.Exec(ctx, `await store("b", undefined); await store("c", "x"); return 2;`)
		Expect(second).To(CompleteWith(2), "a cell that deletes, stores and completes")
		Expect(r.Exec(ctx, `await store("d", 1); throw new Error("boom");`)).To(BeFailed(), "a cell that stores and fails")
		Expect(r.Exec(ctx, `return await load("a");`)).To(CompleteWith(map[string]any{"n": 1}), "a cell that only loads")
		want := []storeEntryRow{
			{Type: protocol.StoreEntryType, ToolCallID: first.ToolCallID, Branch: "main", Sets: map[string]string{"a": `{"n":1}`, "b": `2`}, Deletes: []string{}},
			{Type: protocol.StoreEntryType, ToolCallID: second.ToolCallID, Branch: "main", Sets: map[string]string{"c": `"x"`}, Deletes: []string{"b"}},
		}
		Expect(cmp.Diff(want, storeEntries(ctx, r))).To(BeEmpty(),
			"run.trajectory entries (-want +got): one openclaw.code-mode-store entry per completed cell that wrote, naming its exec call, with its sets and deletes; none for the failed cell or the cell that only loaded")
	})

	It("CM-STO-06", "a failed commit append leaves the cell completed with a warning, and later loads do not see its writes", func(ctx SpecContext) {
		RequireFeature("fault-injection", "CM-STO-06 needs run.prepare faults to make the transcript append fail")
		sid, branch := freshSession(), &protocol.Session{Branch: "main"}
		faulty := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard(), Session: branch, Faults: &protocol.Faults{StoreAppendFails: true},
			Context: protocol.RunContext{SessionID: sid, SessionKey: "agent:store:" + sid}})
		res := faulty.Exec(ctx, `await store("k", 1); return "done";`)
		Expect(res).To(CompleteWith("done"), "a failed append must leave the cell completed")
		var warned bool
		for _, o := range res.Output {
			warned = warned || (o.Type == "text" && o.Text != nil && strings.HasPrefix(*o.Text, "warning:"))
		}
		Expect(warned).To(BeTrue(), "the completed result must carry a text output item starting with \"warning:\": %s", res)
		Expect(faulty.Exec(ctx, loadOf("k"))).To(CompleteWith("<absent>"), "a later cell of the same run must not see the uncommitted write")
		Expect(sessionRun(ctx, sid, branch, true).Exec(ctx, loadOf("k"))).To(CompleteWith("<absent>"), "a later run of the branch must not see the uncommitted write")

		ok := sessionRun(ctx, sid, branch, true)
		Expect(ok.Exec(ctx, `await store("k", 2); return "done";`)).To(CompleteWith("done"), "the same cell without the fault")
		Expect(ok.Exec(ctx, loadOf("k"))).To(CompleteWith(2), "without the fault the write must be committed (the control)")
	})
})
