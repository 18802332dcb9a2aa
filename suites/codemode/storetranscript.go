package codemode

import (
	"encoding/json"
	"fmt"
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

// storeEntries returns the transcript entries of run r, read through
// run.trajectory: a precondition owned by the trajectory (TrajectoryAid).
func storeEntries(ctx SpecContext, r *Run) []storeEntryRow {
	tr := r.TrajectoryAid(ctx, "CM-STO-05 reads the transcript entries through run.trajectory")
	rows := []storeEntryRow{}
	for _, e := range tr.Entries {
		row := storeEntryRow{Type: e.Type, ToolCallID: e.ToolCallID, Branch: e.Branch, Sets: map[string]string{}, Deletes: append([]string{}, e.Deletes...)}
		for k, v := range Sorted(e.Sets) {
			row.Sets[k] = canonical(v)
		}
		rows = append(rows, row)
	}
	return rows
}

var _ = Describe("codemode", "session store transcript", func() {
	It("CM-STO-05", "each committing cell appends one openclaw.code-mode-store transcript entry with its sets and deletes; other cells append none", func(ctx SpecContext) {
		RequireTrajectory("CM-STO-05 reads the transcript entries through run.trajectory")
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
			Context: protocol.RunContext{AgentID: "store", SessionID: sid, SessionKey: "agent:store:" + sid}})
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

	It("CM-STO-08", "committed values come back from the transcript after a restart, across a compaction and however old their entry is", func(ctx SpecContext) {
		RequireTrajectory("CM-STO-08 takes the transcript entries from run.trajectory")
		sid := freshSession()
		a := sessionRun(ctx, sid, &protocol.Session{Branch: "main"}, true)
		Expect(a.Exec(ctx, `await store("old", {v: 1}); await store("gone", 1); return 1;`)).To(CompleteWith(1), "a cell that stores and completes")
		Expect(a.Exec(ctx, `await store("gone", undefined); await store("kept", "k"); return 2;`)).To(CompleteWith(2), "a cell that deletes, stores and completes")
		tr := a.TrajectoryAid(ctx, "CM-STO-08 takes the transcript entries from run.trajectory")
		Expect(tr.Entries).To(HaveLen(2), "two committing cells must have appended two entries (CM-STO-05)")
		a.End(ctx)
		RestartTarget()

		// The branch's transcript as a session manager keeps it: the first
		// entry far behind messages, a compaction and 100 later store entries.
		raw := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
		transcript := []json.RawMessage{raw(tr.Entries[0])}
		for i := 0; i < 200; i++ {
			transcript = append(transcript, raw(map[string]any{"type": "message", "role": "user", "content": fmt.Sprintf("filler %d", i)}))
		}
		transcript = append(transcript, raw(map[string]any{"type": "compaction", "summary": "earlier turns summarised"}))
		for i := 0; i < 100; i++ {
			transcript = append(transcript, raw(protocol.StoreEntry{Type: protocol.StoreEntryType, ToolCallID: fmt.Sprintf("older-%d", i), Branch: "main",
				Sets: map[string]json.RawMessage{fmt.Sprintf("f%d", i): raw(i)}, Deletes: []string{}}))
		}
		transcript = append(transcript, raw(tr.Entries[1]))

		read := `const out = {}; for (const k of ["old", "gone", "kept", "f99"]) { const v = await load(k); out[k] = v === undefined ? "<absent>" : v; } return out;`
		Expect(sessionRun(ctx, sid, &protocol.Session{Branch: "main"}, true).Exec(ctx, read)).To(
			CompleteWith(map[string]any{"old": "<absent>", "gone": "<absent>", "kept": "<absent>", "f99": "<absent>"}),
			"after a restart, a run whose session manager sends no transcript must see no values: the transcript is the only persistence (CM-STO-05)")
		Expect(sessionRun(ctx, sid, &protocol.Session{Branch: "main", Transcript: transcript}, true).Exec(ctx, read)).To(
			CompleteWith(map[string]any{"old": map[string]any{"v": 1}, "gone": "<absent>", "kept": "k", "f99": 99}),
			"after a restart the run given the branch's transcript must load every committed value: the oldest entry's, across the compaction, with the later delete applied")
	})
})
