package store

import (
	"encoding/json"
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

	ts = Transcripts{}
	input, _ := json.Marshal(map[string]string{"pad": strings.Repeat("x", 2000)})
	per := int64(0)
	branches := 0
	for ts.bytes+per*MaxTranscriptEntries <= MaxTranscriptBytes {
		bb := Branch{SessionID: fmt.Sprint(branches), SessionKey: "k"}
		for i := 0; i < MaxTranscriptEntries; i++ {
			_ = ts.Append(bb, Entry{Type: EntryNestedActivity, Call: protocol.TrajectoryCall{ToolCallID: fmt.Sprint(i), Input: input, Status: "ok"}})
		}
		per = ts.by[bb].bytes / MaxTranscriptEntries
		branches++
	}
	last := Branch{SessionID: fmt.Sprint(branches), SessionKey: "k"}
	for i := 0; i < MaxTranscriptEntries; i++ {
		_ = ts.Append(last, Entry{Type: EntryNestedActivity, Call: protocol.TrajectoryCall{ToolCallID: fmt.Sprint(i), Input: input, Status: "ok"}})
	}
	if ts.bytes > MaxTranscriptBytes {
		t.Fatalf("the transcripts hold %d bytes, over %d", ts.bytes, MaxTranscriptBytes)
	}
	if _, kept := ts.by[Branch{SessionID: "0", SessionKey: "k"}]; kept {
		t.Fatal("the branch written least recently must be dropped first")
	}
	if n := len(ts.History(last).Activity); n != MaxTranscriptEntries {
		t.Fatalf("the branch being written must keep its %d rows, has %d", MaxTranscriptEntries, n)
	}
}
