package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

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

// renamedIDs checks that got's ids correspond one to one with want's, by
// position (the i-th id of got stands for the i-th of want): a target may
// rename the provider's call ids in its transcript (OpenClaw 2026.7.35's
// replay policy makes call_1 call1, for the call and its result alike), and
// neither 000 [Checklist di validazione] ("la riproduzione e la persistenza
// della trascrizione preservano le chiamate di controllo") nor CM-E2E-09's
// text (spec/CHANGES.md, Version 4) demands the same id string, only that
// each call keeps its own id, paired with its own result. It returns what
// breaks the correspondence ("" when nothing does): an empty id, or one id
// of got standing for two of want or two for one.
func renamedIDs(want, got []string) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d ids against %d", len(got), len(want))
	}
	fwd, back := map[string]string{}, map[string]string{}
	for i := range want {
		w, g := want[i], got[i]
		if g == "" {
			return fmt.Sprintf("call %d (%s) has no id", i+1, w)
		}
		if x, ok := fwd[w]; ok && x != g {
			return fmt.Sprintf("id %s is %s at one place and %s at another", w, x, g)
		}
		if x, ok := back[g]; ok && x != w {
			return fmt.Sprintf("id %s stands for both %s and %s", g, x, w)
		}
		fwd[w], back[g] = g, w
	}
	return ""
}

// withoutIDs returns calls with their ids cleared, for a comparison by
// position (renamedIDs judges the ids).
func withoutIDs(calls []controlCall) (rows []controlCall, ids []string) {
	for _, c := range calls {
		ids = append(ids, c.ID)
		c.ID = ""
		rows = append(rows, c)
	}
	return rows, ids
}

// sameControlCalls compares two lists of exec/wait calls by position:
// names, inputs and results equal, ids in one-to-one correspondence
// (renamedIDs). It returns "" or what differs (-want +got).
func sameControlCalls(want, got []controlCall) string {
	w, wids := withoutIDs(want)
	g, gids := withoutIDs(got)
	if d := cmp.Diff(w, g); d != "" {
		return d
	}
	if why := renamedIDs(wids, gids); why != "" {
		return fmt.Sprintf("the call ids do not correspond one to one (%s): %v against %v", why, gids, wids)
	}
	return ""
}

var _ = Describe("e2e", "end-to-end plan: trajectory and transcript replay", func() {
	It("CM-E2E-08", "the trajectory of an agent turn shows each nested call under the exec or wait call of the model it was made in", func(ctx SpecContext) {
		requireTurns("CM-E2E-08")
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 1000}), Tools: planTools()})
		prov := StartProvider(provider.Exec(Rendered(suspendingCode)), r.Settle())
		res := r.Turn(ctx, prov, "Run the job.", TurnOptions{})
		Expect(res.Status).To(Equal(protocol.TurnCompleted), "the turn must complete%s", evidence(prov, res))
		blockOnDialectCells(res)
		calls := toolCalls(res)
		Expect(len(calls)).To(BeNumerically(">=", 2), "the slow call must suspend the cell: exec, then at least one wait%s", evidence(prov, res))
		// Compared by correspondence, not by id string: the i-th exec/wait
		// row of the trajectory stands for the model's i-th call (whose id a
		// target may rename, renamedIDs), and each nested row must sit under
		// the row of the call it was made in, with its tool and input. The
		// nested calls' own ids and catalog ids are CM-NEST-07's ("with the
		// nested tool id"); the rows compared here carry the tool's name, or
		// its catalog id where the trajectory gives one.
		type row struct {
			Parent      int // 1-based ordinal of the exec/wait row it is under; 0 for exec/wait
			Tool, Input string
		}
		var tr protocol.TrajectoryResult
		err := T().Call(ctx, protocol.MethodRunTrajectory, protocol.RunParams{Run: r.ID}, &tr)
		NotAnswered("trajectory", protocol.MethodRunTrajectory, err)
		Expect(err).NotTo(HaveOccurred(), "run.trajectory failed at the protocol level")
		var gotIDs []string
		ordinal := map[string]int{}
		for _, c := range tr.Calls {
			if c.ParentToolCallID == "" {
				gotIDs = append(gotIDs, c.ToolCallID)
				ordinal[c.ToolCallID] = len(gotIDs)
			}
		}
		// The call a nested call was made in is the one its tool.invoke
		// parentToolCallId names (spec/protocol.md §3, CM-NEST-07). A target
		// may know the i-th call of the turn under more than one id: the
		// provider's, its transcript's renaming of it (audit 2026-12-02: 7.35
		// makes call_1 call1) and its trajectory row's. The parent is matched
		// against each, by position within its own list, the transcript's
		// first, then the provider's, then the trajectory's, so a renamed id
		// drops no row. A parent named by none of them leaves the call it was
		// made in unknown: that is CM-NEST-07's fault, not this placement's.
		var wantIDs, sentIDs []string
		for _, c := range calls {
			wantIDs = append(wantIDs, c.ID)
		}
		for _, q := range prov.Requests() {
			if q.Reply != nil {
				for _, c := range q.Reply.ToolCalls {
					if c.Function.Name == "exec" || c.Function.Name == "wait" {
						sentIDs = append(sentIDs, c.ID)
					}
				}
			}
		}
		madeIn := func(parent string) int {
			for _, ids := range [][]string{wantIDs, sentIDs, gotIDs} {
				if i := slices.Index(ids, parent); i >= 0 && parent != "" {
					return i + 1
				}
			}
			return 0
		}
		nested := r.Tools.Calls()
		under := map[int][]row{}
		for _, n := range nested {
			i := madeIn(n.ParentToolCallID)
			Precondition("CM-NEST-07").Expect(i).To(BeNumerically(">", 0), "the nested call %s (tool.invoke %s) must name the exec/wait call it was made in as parentToolCallId: %q is the id of none of the turn's calls (transcript %v, provider %v, trajectory %v)%s",
				n.Tool, n.ToolCallID, n.ParentToolCallID, wantIDs, sentIDs, gotIDs, evidence(prov, res))
			under[i] = append(under[i], row{Parent: i, Tool: n.Tool, Input: canonical(string(n.Input))})
		}
		var want []row
		for i, c := range calls {
			want = append(want, row{Tool: c.Function.Name})
			want = append(want, under[i+1]...)
		}
		for i := range Sorted(under) {
			if i > len(calls) {
				// Made in a call the trajectory or the provider knows but the
				// transcript does not hold: the comparison shows it missing.
				want = append(want, under[i]...)
			}
		}
		catalogName := map[string]string{}
		for _, n := range nested {
			catalogName[n.CatalogID] = n.Tool
		}
		var got []row
		for _, c := range tr.Calls {
			if c.ParentToolCallID == "" {
				got = append(got, row{Tool: c.Tool})
				continue
			}
			tool := c.Tool
			if n, ok := catalogName[c.CatalogID]; ok && c.CatalogID != "" {
				tool = n
			}
			parent, ok := ordinal[c.ParentToolCallID]
			if !ok {
				parent = -1 // under no exec/wait row of the trajectory
			}
			got = append(got, row{Parent: parent, Tool: tool, Input: canonical(string(c.Input))})
		}
		Expect(len(nested)).To(Equal(3), "echo, slow and add must each reach the harness once%s", evidence(prov, res))
		Expect(cmp.Diff(want, got)).To(BeEmpty(), "run.trajectory (-want +got): each exec/wait call of the model, in order, then the nested calls the harness received under it (parent: the ordinal of the exec/wait row it is under, -1 for none), with tool and input%s", evidence(prov, res))
		Expect(renamedIDs(wantIDs, gotIDs)).To(BeEmpty(), "run.trajectory's exec/wait rows must each stand for one call of the model (its provider call id, or one consistent renaming of it): %v against %v%s", gotIDs, wantIDs, evidence(prov, res))
	})

	It("CM-E2E-09", "a persisted transcript replayed in the next turn keeps the exec/wait calls' ids, inputs and results, in order", func(ctx SpecContext) {
		requireTurns("CM-E2E-09")
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 1000}), Tools: planTools()})
		first := StartProvider(provider.Exec(Rendered(suspendingCode)), r.Settle())
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
		// The results the provider received, from its last request: under
		// the provider's own ids, or, where the target renamed them, by
		// position among that request's exec/wait calls (sameControlCalls
		// judges the renaming).
		lastReq := first.Requests()[len(first.Requests())-1]
		last, lastCalls := lastReq.ToolResults(), controlCalls(lastReq.Messages)
		for i := range sent {
			if r, ok := last[sent[i].ID]; ok {
				sent[i].Result = canonical(r)
			} else if len(lastCalls) == len(sent) {
				sent[i].Result = lastCalls[i].Result
			}
		}
		Expect(sameControlCalls(sent, want)).To(BeEmpty(), "the turn's transcript must hold the model's exec/wait calls (each under its own id, paired with its result; a consistent renaming of the ids is allowed), inputs and the results the provider received, in order (-provider +transcript)%s", evidence(first, res))

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
		Expect(sameControlCalls(want, got)).To(BeEmpty(), "the replayed conversation the provider receives must keep every exec/wait call (its own id paired with its result; a consistent renaming is allowed), input and result, in order (-first turn +replay)%s", evidence(second, res2))
	})
})
