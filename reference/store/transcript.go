package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Entry types of a session transcript as the reference persists it (feature
// nested-activity, protocol.md §4.2).
const (
	// EntryModelCall is a model tool call (exec, wait or a direct tool) as
	// the assistant message carried it; EntryModelResult its result status.
	EntryModelCall   = "model_call"
	EntryModelResult = "model_result"
	// EntryNestedActivity is one completed nested call, display only
	// (OpenClaw's custom entry type, CM-NEST-17).
	EntryNestedActivity = "openclaw.nested-tool.v1"
)

// Bounds of the transcripts (reference, protocol.md §4.2): a branch keeps
// its last MaxTranscriptEntries entries and at most MaxBranchBytes of
// encoded entries (older ones are dropped and its views say truncated), so
// a view stays below the 16 MiB message bound; an entry over
// MaxEntryBytes is not kept (the branch says truncated). The transcripts of
// a process hold at most MaxTranscriptBytes (entries, and each branch's
// key and branchOverhead): past it the oldest entries of the process are
// dropped, whichever branch holds them, and each branch that lost one says
// truncated, also once emptied. Only when nothing but emptied branches is
// left are those forgotten, oldest first; from then on a branch the process
// holds nothing of says truncated, since it may be one of them.
const (
	MaxTranscriptEntries = 4096
	MaxBranchBytes       = 8 << 20
	MaxEntryBytes        = 64 << 10
	MaxTranscriptBytes   = 64 << 20
	branchOverhead       = 256
)

// ErrEntryTooLarge is returned by Append for an entry over MaxEntryBytes.
var ErrEntryTooLarge = errors.New("transcript entry too large")

// Entry is one persisted transcript entry. Run is the agent run that wrote
// it and Instance which run of that id (a run id may be reused after
// run.end; the reference numbers the runs of its process); Key, for a model call or result, is the call's replay identity (run,
// assistantResponseId, toolCallId and input): entries with the same Key are
// one call replayed; Call is the model call (ToolCallID,
// AssistantResponseID, Tool, Input, Status) or the nested-activity row.
type Entry struct {
	Type     string                  `json:"type"`
	Run      string                  `json:"run"`
	Instance uint64                  `json:"instance,omitempty"`
	Key      string                  `json:"key,omitempty"`
	Call     protocol.TrajectoryCall `json:"call"`
}

// History is a branch's history as the session manager projects it from
// the transcript: the nested activity (display only) and the model calls
// the next provider request replays.
type History struct {
	Activity  []protocol.TrajectoryCall
	Replay    []protocol.TrajectoryCall
	Truncated bool
}

// Transcripts holds the session transcript of each branch of a process,
// each entry stored encoded, as a session file holds it. The views are a
// projection of those bytes, cached until the next append or Reload: what
// a reload gives back is exactly what was persisted. The zero value is ready.
type Transcripts struct {
	mu     sync.Mutex
	by     map[Branch]*transcript
	bytes  int64
	clock  int64
	forgot bool // an emptied branch was forgotten: unknown branches say truncated
}

type transcript struct {
	lines   [][]byte
	seqs    []int64 // clock of each line's append (process-wide eviction order)
	bytes   int64
	dropped bool
	used    int64    // clock of the last append
	cache   *History // projection of lines; nil: not built
}

// branchCost is what b's record counts against MaxTranscriptBytes besides
// its entries.
func branchCost(b Branch) int64 {
	return int64(len(b.SessionID)+len(b.SessionKey)+len(b.Name)) + branchOverhead
}

// dropFirst drops tr's oldest entry.
func (t *Transcripts) dropFirst(tr *transcript) {
	n := int64(len(tr.lines[0]))
	tr.lines[0] = nil
	tr.lines, tr.seqs = tr.lines[1:], tr.seqs[1:]
	tr.bytes -= n
	t.bytes -= n
	tr.dropped = true
	tr.cache = nil
}

// Append persists e on branch b. An entry over MaxEntryBytes is not kept:
// ErrEntryTooLarge, and b's views say truncated.
func (t *Transcripts) Append(b Branch, e Entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.by == nil {
		t.by = map[Branch]*transcript{}
	}
	tr := t.by[b]
	if tr == nil {
		tr = &transcript{}
		t.by[b] = tr
		t.bytes += branchCost(b)
	}
	t.clock++
	tr.used = t.clock
	tr.cache = nil
	if len(line) > MaxEntryBytes {
		tr.dropped = true
		return fmt.Errorf("%w: %d bytes, at most %d", ErrEntryTooLarge, len(line), MaxEntryBytes)
	}
	tr.lines = append(tr.lines, line)
	tr.seqs = append(tr.seqs, t.clock)
	tr.bytes += int64(len(line))
	t.bytes += int64(len(line))
	for len(tr.lines) > MaxTranscriptEntries || tr.bytes > MaxBranchBytes {
		t.dropFirst(tr)
	}
	for t.bytes > MaxTranscriptBytes && t.evictLocked(tr) {
	}
	return nil
}

// evictLocked drops the oldest entry of the process, whichever branch holds
// it, but never keep's last one (the entry just appended); with no such
// entry left, it forgets the emptied branch written least recently, other
// than keep. false when nothing is left to drop.
func (t *Transcripts) evictLocked(keep *transcript) bool {
	var victim *transcript
	for _, tr := range t.by {
		if len(tr.lines) == 0 || (tr == keep && len(tr.lines) == 1) {
			continue
		}
		if victim == nil || tr.seqs[0] < victim.seqs[0] {
			victim = tr
		}
	}
	if victim != nil {
		t.dropFirst(victim)
		return true
	}
	var empty *Branch
	var oldest int64
	for b, tr := range t.by {
		if tr != keep && len(tr.lines) == 0 && (empty == nil || tr.used < oldest) {
			bb := b
			empty, oldest = &bb, tr.used
		}
	}
	if empty == nil {
		return false
	}
	t.bytes -= branchCost(*empty)
	delete(t.by, *empty)
	t.forgot = true
	return true
}

// History returns branch b's history, projected from its persisted entries.
func (t *Transcripts) History(b Branch) History {
	t.mu.Lock()
	defer t.mu.Unlock()
	tr := t.by[b]
	if tr == nil {
		return History{Activity: []protocol.TrajectoryCall{}, Replay: []protocol.TrajectoryCall{}, Truncated: t.forgot}
	}
	if tr.cache == nil {
		h := project(tr.lines, nil)
		h.Truncated = tr.dropped
		tr.cache = &h
	}
	return History{Activity: append([]protocol.TrajectoryCall{}, tr.cache.Activity...),
		Replay: append([]protocol.TrajectoryCall{}, tr.cache.Replay...), Truncated: tr.cache.Truncated}
}

// Reload drops what is held in memory about branch b's history: the next
// History reads the persisted entries again, as after a restart.
func (t *Transcripts) Reload(b Branch) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tr := t.by[b]; tr != nil {
		tr.cache = nil
	}
}

// RunActivity is the nested activity run (its instance) wrote on branch b,
// read from the persisted entries (what finalisation and agent-end hooks
// read): an ended run that had the same id is not part of it.
func (t *Transcripts) RunActivity(b Branch, run string, instance uint64) []protocol.TrajectoryCall {
	t.mu.Lock()
	defer t.mu.Unlock()
	tr := t.by[b]
	if tr == nil {
		return []protocol.TrajectoryCall{}
	}
	return project(tr.lines, &runInstance{run, instance}).Activity
}

// runInstance is one run: its id and instance (Entry.Instance).
type runInstance struct {
	run      string
	instance uint64
}

// project decodes lines (only those of run when it is not nil) into a History.
// A model call repeated with the same Key (replay identity: same
// toolCallId, assistantResponseId and input; without a Key the ids alone)
// is one call replayed: it keeps its place, as does an activity row whose
// nested toolCallId was already written (CM-NEST-18). The same ids with
// other input are another call with its own entry.
func project(lines [][]byte, run *runInstance) History {
	h := History{Activity: []protocol.TrajectoryCall{}, Replay: []protocol.TrajectoryCall{}}
	type key struct {
		instance              uint64
		replay, resp, id, run string
	}
	calls := map[key]int{}
	rows := map[string]int{}
	for _, line := range lines {
		var e Entry
		if json.Unmarshal(line, &e) != nil || (run != nil && (e.Run != run.run || e.Instance != run.instance)) {
			continue
		}
		c := e.Call
		k := key{e.Instance, e.Key, c.AssistantResponseID, c.ToolCallID, e.Run}
		switch e.Type {
		case EntryModelCall:
			if i, ok := calls[k]; ok {
				h.Replay[i] = c
				continue
			}
			calls[k] = len(h.Replay)
			h.Replay = append(h.Replay, c)
		case EntryModelResult:
			if i, ok := calls[k]; ok {
				h.Replay[i].Status = c.Status
			}
		case EntryNestedActivity:
			c.DisplayOnly = true
			if i, ok := rows[c.ToolCallID]; ok {
				h.Activity[i] = c
				continue
			}
			rows[c.ToolCallID] = len(h.Activity)
			h.Activity = append(h.Activity, c)
		}
	}
	return h
}

// Release drops every transcript of t (its runtime closed).
func (t *Transcripts) Release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.by, t.bytes, t.forgot = nil, 0, false
}
