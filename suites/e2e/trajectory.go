package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/codemode-conformance/codemode/fakes/provider"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/google/go-cmp/cmp"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// suspendingCode makes a nested call in its exec, is suspended by a slow
// call, and makes another nested call in the wait that resumes it.
var suspendingCode = Guest(`await call("echo", {message: "before"});
await call("slow", {ms: 1500, tag: "suspends"});
await call("add", {a: 1, b: 2});
return "done";`)

// trajectoryRow is what CM-E2E-08 compares of one trajectory call.
type trajectoryRow struct {
	ToolCallID, ParentToolCallID, Tool, CatalogID, Input string
}

// controlCall is one exec/wait call of a transcript with its result, as
// CM-E2E-09 compares them.
type controlCall struct {
	ID, Name, Input, Result string
}

func canonical(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// controlCalls lists the exec/wait calls of messages in order, each with
// the tool message that answers it ("" when none does).
func controlCalls(msgs []protocol.ChatMessage) []controlCall {
	results := map[string]string{}
	for _, m := range msgs {
		if m.Role == "tool" {
			results[m.ToolCallID] = canonical(m.Text())
		}
	}
	var out []controlCall
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if c.Function.Name == "exec" || c.Function.Name == "wait" {
				out = append(out, controlCall{ID: c.ID, Name: c.Function.Name, Input: canonical(c.Function.Arguments), Result: results[c.ID]})
			}
		}
	}
	return out
}

var _ = Describe("e2e", "end-to-end plan: trajectory and transcript replay", func() {
	It("CM-E2E-08", "the trajectory of an agent turn shows each nested call under the exec or wait call of the model it was made in", func(ctx SpecContext) {
		requireTurns("CM-E2E-08")
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 1000}), Tools: planTools()})
		prov := StartProvider(provider.Exec(Rendered(suspendingCode)), provider.Settle())
		res := r.Turn(ctx, prov, "Run the job.", TurnOptions{})
		Expect(res.Status).To(Equal(protocol.TurnCompleted), "the turn must complete%s", evidence(prov, res))
		blockOnDialectCells(res)
		calls := toolCalls(res)
		Expect(len(calls)).To(BeNumerically(">=", 2), "the slow call must suspend the cell: exec, then at least one wait%s", evidence(prov, res))
		var want []trajectoryRow
		nested := r.Tools.Calls()
		for _, c := range calls {
			want = append(want, trajectoryRow{ToolCallID: c.ID, Tool: c.Function.Name})
			for _, n := range nested {
				if n.ParentToolCallID == c.ID {
					want = append(want, trajectoryRow{ToolCallID: n.ToolCallID, ParentToolCallID: c.ID, Tool: n.Tool, CatalogID: n.CatalogID, Input: canonical(string(n.Input))})
				}
			}
		}
		var tr protocol.TrajectoryResult
		err := T().Call(ctx, protocol.MethodRunTrajectory, protocol.RunParams{Run: r.ID}, &tr)
		NotAnswered("trajectory", protocol.MethodRunTrajectory, err)
		Expect(err).NotTo(HaveOccurred(), "run.trajectory failed at the protocol level")
		var got []trajectoryRow
		for _, c := range tr.Calls {
			row := trajectoryRow{ToolCallID: c.ToolCallID, ParentToolCallID: c.ParentToolCallID, Tool: c.Tool, CatalogID: c.CatalogID}
			if c.ParentToolCallID != "" {
				row.Input = canonical(string(c.Input))
			}
			got = append(got, row)
		}
		Expect(len(nested)).To(Equal(3), "echo, slow and add must each reach the harness once%s", evidence(prov, res))
		Expect(cmp.Diff(want, got)).To(BeEmpty(), "run.trajectory (-want +got): each exec/wait call of the model (its provider call id), then the nested calls the harness received under it, with call id, parent, tool, catalog id and input%s", evidence(prov, res))
	})

	It("CM-E2E-09", "a persisted transcript replayed in the next turn keeps the exec/wait calls' ids, inputs and results, in order", func(ctx SpecContext) {
		requireTurns("CM-E2E-09")
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 1000}), Tools: planTools()})
		first := StartProvider(provider.Exec(Rendered(suspendingCode)), provider.Settle())
		res := r.Turn(ctx, first, "Run the job.", TurnOptions{})
		Expect(res.Status).To(Equal(protocol.TurnCompleted), "the first turn must complete%s", evidence(first, res))
		blockOnDialectCells(res)
		want := controlCalls(res.Messages)
		Expect(len(want)).To(BeNumerically(">=", 2), "the first turn must hold an exec and at least one wait%s", evidence(first, res))
		// The transcript must record what the model called and what it was given.
		var sent []controlCall
		for _, q := range first.Requests() {
			if q.Reply != nil {
				for _, c := range q.Reply.ToolCalls {
					sent = append(sent, controlCall{ID: c.ID, Name: c.Function.Name, Input: canonical(c.Function.Arguments)})
				}
			}
		}
		last := first.Requests()[len(first.Requests())-1].ToolResults()
		for i := range sent {
			sent[i].Result = canonical(last[sent[i].ID])
		}
		Expect(cmp.Diff(sent, want)).To(BeEmpty(), "the turn's transcript must hold the model's exec/wait calls (ids, inputs) and the results the provider received, in order (-provider +transcript)%s", evidence(first, res))

		// Persist, then replay in a second turn.
		path := filepath.Join(ginkgo.GinkgoT().TempDir(), "transcript.json")
		b, err := json.Marshal(res.Messages)
		Expect(err).NotTo(HaveOccurred(), "the transcript must marshal")
		Expect(os.WriteFile(path, b, 0o644)).To(Succeed(), "persisting the transcript")
		b, err = os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred(), "reading the persisted transcript")
		var history []protocol.ChatMessage
		Expect(json.Unmarshal(b, &history)).To(Succeed(), "the persisted transcript must read back")

		second := StartProvider(provider.Final("replayed"))
		res2 := r.Turn(ctx, second, "What did the job return?", TurnOptions{History: history})
		Expect(res2.Status).To(Equal(protocol.TurnCompleted), "the replayed turn must complete%s", evidence(second, res2))
		Expect(second.Requests()).To(HaveLen(1), "one request%s", evidence(second, res2))
		got := controlCalls(second.Requests()[0].Messages)
		Expect(cmp.Diff(want, got)).To(BeEmpty(), "the replayed conversation the provider receives must keep every exec/wait call's id, input and result, in order (-first turn +replay)%s", evidence(second, res2))
	})
})
