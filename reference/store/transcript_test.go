package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/google/go-cmp/cmp"
)

// TestTranscriptHistory pins the projection behind run.trajectory's views
// (protocol.md §4.2, CM-NEST-17/18): model calls in order with their latest
// status, a replayed call once, activity rows display-only and keyed by
// their nested id, the same after Reload, and per run for hook.agentEnd.
func TestTranscriptHistory(t *testing.T) {
	var ts Transcripts
	b := Branch{SessionID: "s", SessionKey: "k"}
	call := func(run, resp, id, tool string) {
		_ = ts.Append(b, Entry{Type: EntryModelCall, Run: run, Call: protocol.TrajectoryCall{ToolCallID: id, AssistantResponseID: resp, Tool: tool, Status: "running"}})
	}
	done := func(run, resp, id, status string) {
		_ = ts.Append(b, Entry{Type: EntryModelResult, Run: run, Call: protocol.TrajectoryCall{ToolCallID: id, AssistantResponseID: resp, Status: status}})
	}
	row := func(run, id, parent, status string) {
		_ = ts.Append(b, Entry{Type: EntryNestedActivity, Run: run, Call: protocol.TrajectoryCall{ToolCallID: id, ParentToolCallID: parent, Tool: "echo", Status: status}})
	}
	call("r1", "resp-1", "call_1", "exec")
	row("r1", "n1", "call_1", "ok")
	done("r1", "resp-1", "call_1", "completed")
	call("r1", "resp-2", "call_1", "exec") // the id reused in a later response: another call
	row("r1", "n2", "call_1", "error")
	done("r1", "resp-2", "call_1", "failed")
	call("r1", "resp-1", "call_1", "exec") // a replay of the first call: the same one
	row("r1", "n1", "call_1", "cancelled")
	done("r1", "resp-1", "call_1", "waiting")
	call("r2", "", "call_9", "exec")
	row("r2", "n9", "call_9", "ok")

	null := json.RawMessage("null") // no input given: a JSON null, as persisted
	want := History{
		Replay: []protocol.TrajectoryCall{
			{ToolCallID: "call_1", AssistantResponseID: "resp-1", Tool: "exec", Input: null, Status: "waiting"},
			{ToolCallID: "call_1", AssistantResponseID: "resp-2", Tool: "exec", Input: null, Status: "failed"},
			{ToolCallID: "call_9", Tool: "exec", Input: null, Status: "running"},
		},
		Activity: []protocol.TrajectoryCall{
			{ToolCallID: "n1", ParentToolCallID: "call_1", Tool: "echo", Input: null, Status: "cancelled", DisplayOnly: true},
			{ToolCallID: "n2", ParentToolCallID: "call_1", Tool: "echo", Input: null, Status: "error", DisplayOnly: true},
			{ToolCallID: "n9", ParentToolCallID: "call_9", Tool: "echo", Input: null, Status: "ok", DisplayOnly: true},
		},
	}
	if d := cmp.Diff(want, ts.History(b)); d != "" {
		t.Fatalf("history (-want +got):\n%s", d)
	}
	ts.Reload(b)
	if d := cmp.Diff(want, ts.History(b)); d != "" {
		t.Fatalf("history after Reload (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want.Activity[2:], ts.RunActivity(b, "r2", 0)); d != "" {
		t.Fatalf("RunActivity r2 (-want +got):\n%s", d)
	}
	other := Branch{SessionID: "s", SessionKey: "k", Name: "fork"}
	if h := ts.History(other); len(h.Activity)+len(h.Replay) != 0 || h.Activity == nil || h.Replay == nil {
		t.Fatalf("another branch must see nothing (and empty, not nil, views): %+v", h)
	}
}

// TestTranscriptRunReuse: a run id reused after run.end is another run
// instance: RunActivity of the new one leaves out the ended run's rows, and
// the replay view keeps both runs' model calls even with the same ids
// (finding 9 of the adversarial pass).
func TestTranscriptRunReuse(t *testing.T) {
	var ts Transcripts
	b := Branch{SessionID: "s", SessionKey: "k"}
	for inst := uint64(1); inst <= 2; inst++ {
		_ = ts.Append(b, Entry{Type: EntryModelCall, Run: "r1", Instance: inst, Key: fmt.Sprint("k", inst), Call: protocol.TrajectoryCall{ToolCallID: "call-1", Tool: "exec", Status: "running"}})
		_ = ts.Append(b, Entry{Type: EntryNestedActivity, Run: "r1", Instance: inst, Call: protocol.TrajectoryCall{ToolCallID: fmt.Sprint("n", inst), ParentToolCallID: "call-1", Tool: "echo", Status: "ok"}})
	}
	got := ts.RunActivity(b, "r1", 2)
	if len(got) != 1 || got[0].ToolCallID != "n2" {
		t.Errorf("RunActivity of the second r1: %+v, want only its own row n2", got)
	}
	if h := ts.History(b); len(h.Replay) != 2 || len(h.Activity) != 2 {
		t.Errorf("history: %d model calls, %d rows; want both runs' call-1 and both rows", len(h.Replay), len(h.Activity))
	}
}

// TestTranscriptBounds pins the reference's bounds: a branch keeps its last
// MaxTranscriptEntries entries and says truncated; past MaxTranscriptBytes
// the branches written least recently are dropped first.
func TestTranscriptBounds(t *testing.T) {
	var ts Transcripts
	b := Branch{SessionID: "s", SessionKey: "k"}
	for i := 0; i < MaxTranscriptEntries+10; i++ {
		_ = ts.Append(b, Entry{Type: EntryNestedActivity, Call: protocol.TrajectoryCall{ToolCallID: fmt.Sprint(i), Status: "ok"}})
	}
	h := ts.History(b)
	if len(h.Activity) != MaxTranscriptEntries || !h.Truncated || h.Activity[0].ToolCallID != "10" {
		t.Fatalf("got %d rows (truncated %v, first %q), want the last %d and truncated", len(h.Activity), h.Truncated, h.Activity[0].ToolCallID, MaxTranscriptEntries)
	}

	big, _ := json.Marshal(map[string]string{"pad": strings.Repeat("x", 4000)})
	for i := 0; i < 3000; i++ { // ~12 MB: over MaxBranchBytes
		_ = ts.Append(b, Entry{Type: EntryNestedActivity, Call: protocol.TrajectoryCall{ToolCallID: fmt.Sprint(i), Input: big, Status: "ok"}})
	}
	if tr := ts.by[b]; tr.bytes > MaxBranchBytes || !ts.History(b).Truncated {
		t.Fatalf("a branch holds %d bytes (truncated %v), want at most %d and truncated", tr.bytes, ts.History(b).Truncated, MaxBranchBytes)
	}
	huge := Entry{Type: EntryModelCall, Call: protocol.TrajectoryCall{ToolCallID: strings.Repeat("i", MaxEntryBytes)}}
	if err := ts.Append(Branch{SessionID: "huge"}, huge); !errors.Is(err, ErrEntryTooLarge) || !ts.History(Branch{SessionID: "huge"}).Truncated {
		t.Fatalf("an entry over MaxEntryBytes: %v, want ErrEntryTooLarge and the branch truncated", err)
	}

	// Past MaxTranscriptBytes the oldest entries go, whichever branch holds
	// them; emptied and shortened branches say truncated, none is lost whole
	// silently, and the branch being written keeps its rows.
	ts = Transcripts{}
	input, _ := json.Marshal(map[string]string{"pad": strings.Repeat("x", 2000)})
	const perBranch = 3500 // ~7.6 MB, under MaxBranchBytes
	branch := func(n int) Branch { return Branch{SessionID: fmt.Sprint(n), SessionKey: "k"} }
	n := 0
	for ; ts.bytes <= MaxTranscriptBytes+MaxBranchBytes; n++ {
		for i := 0; i < perBranch; i++ {
			_ = ts.Append(branch(n), Entry{Type: EntryNestedActivity, Call: protocol.TrajectoryCall{ToolCallID: fmt.Sprint(i), Input: input, Status: "ok"}})
		}
		if ts.bytes > MaxTranscriptBytes {
			t.Fatalf("the transcripts hold %d bytes, over %d", ts.bytes, MaxTranscriptBytes)
		}
		if n > 20 {
			break
		}
	}
	first := ts.History(branch(0))
	if len(first.Activity) != 0 || !first.Truncated {
		t.Fatalf("the branch written first: %d rows, truncated %v; want emptied and truncated", len(first.Activity), first.Truncated)
	}
	if h := ts.History(branch(n - 1)); len(h.Activity) != perBranch || h.Truncated {
		t.Fatalf("the branch written last: %d rows, truncated %v; want all %d, not truncated", len(h.Activity), h.Truncated, perBranch)
	}
	if h := ts.History(Branch{SessionID: "never"}); h.Truncated {
		t.Fatal("a branch never written must not say truncated while no branch was forgotten")
	}
}

// TestTranscriptForgetsEmptiedBranches: when only emptied branches are left
// over the process bound, they are forgotten, and from then on a branch the
// process holds nothing of says truncated.
func TestTranscriptForgetsEmptiedBranches(t *testing.T) {
	var ts Transcripts
	gone := Branch{SessionID: "gone"}
	_ = ts.Append(gone, Entry{Type: EntryNestedActivity, Call: protocol.TrajectoryCall{ToolCallID: "a", Status: "ok"}})
	ts.dropFirst(ts.by[gone])
	ts.bytes += MaxTranscriptBytes // as if the process were full
	_ = ts.Append(Branch{SessionID: "now"}, Entry{Type: EntryNestedActivity, Call: protocol.TrajectoryCall{ToolCallID: "b", Status: "ok"}})
	if _, kept := ts.by[gone]; kept {
		t.Fatal("the emptied branch must be forgotten once nothing else can go")
	}
	if h := ts.History(gone); !h.Truncated {
		t.Fatal("a forgotten branch must say truncated")
	}
	if h := ts.History(Branch{SessionID: "now"}); len(h.Activity) != 1 {
		t.Fatalf("the branch being written keeps its row, has %d", len(h.Activity))
	}
}
