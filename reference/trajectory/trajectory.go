// Package trajectory is a run's tool calls as its transcript would hold them
// (run.trajectory, feature trajectory; CM-NEST-07, CM-E2E-08): the exec and
// wait calls and, under each, the nested calls made during it, with the
// run's session store entries (CM-STO-05), bounded so that a run.trajectory
// answer stays within the 16 MiB message bound (spec/protocol.md §1).
// reference/codemode records into a run's Log; the bounds also serve the
// rows it persists under nested-activity.
package trajectory

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Trajectory bounds: a run keeps at most MaxCalls entries, and an input
// larger than MaxInput bytes of JSON is recorded as a marker (BoundInput).
const (
	MaxCalls = 4096
	MaxInput = 2 << 10 // 4096 × 2 KiB stays well inside the 16 MiB message bound (protocol.md §1)
	// maxTrajectoryCallBytes bounds the encoded calls a run's trajectory
	// keeps: with maxTrajectoryEntryBytes of store entries a run.trajectory
	// answer stays within the 16 MiB message bound whatever the ids.
	maxTrajectoryCallBytes = 8 << 20
)

// MaxCallIDBytes bounds the ids the reference stores and echoes:
// tool.exec/tool.wait toolCallId and assistantResponseId (longer: -32602,
// spec/protocol.md §3), and so the parentToolCallId of nested calls.
const MaxCallIDBytes = 1 << 10

// boundID is id, or for one over MaxCallIDBytes (a direct tool call id
// from a provider) its first 64 bytes and the hex SHA-256 of all of it.
func boundID(id string) string {
	if len(id) <= MaxCallIDBytes {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return fmt.Sprintf("%s…sha256:%s", strings.ToValidUTF8(id[:64], ""), hex.EncodeToString(sum[:]))
}

// BoundIDs is c with its toolCallId, parentToolCallId and
// assistantResponseId bounded: each over MaxCallIDBytes becomes its first 64
// bytes and the hex SHA-256 of all of it.
func BoundIDs(c protocol.TrajectoryCall) protocol.TrajectoryCall {
	c.ToolCallID, c.ParentToolCallID, c.AssistantResponseID = boundID(c.ToolCallID), boundID(c.ParentToolCallID), boundID(c.AssistantResponseID)
	return c
}

// Log is a run's tool calls as its transcript would hold them: exec/wait
// calls and, under each, the nested calls made during it as real tool calls
// with the nested tool id (CM-NEST-07, CM-E2E-08). Past MaxCalls calls or
// maxTrajectoryCallBytes of them it records no more and says truncated. The
// zero value is ready; it is safe for concurrent use.
type Log struct {
	mu        sync.Mutex
	calls     []protocol.TrajectoryCall
	callBytes int            // encoded calls (maxTrajectoryCallBytes)
	index     map[string]int // by toolCallId
	truncated bool
	// entries are the run's openclaw.code-mode-store transcript entries
	// (CM-STO-05); entryBytes bounds them (maxTrajectoryEntryBytes).
	entries    []protocol.StoreEntry
	entryBytes int
}

// maxTrajectoryEntryBytes bounds the store entries a run's trajectory keeps:
// with 4096 calls of at most 2 KiB input it stays within the 16 MiB message
// bound (protocol.md §1).
const maxTrajectoryEntryBytes = 6 << 20

// AddEntry appends a store entry to the run's transcript (CM-STO-05). Past
// maxTrajectoryEntryBytes the entry is not kept and the trajectory is marked
// truncated; the commit itself goes ahead (the bound is the reference's
// report bound, not a failed append). The error is the entry's encoding's.
func (t *Log) AddEntry(e protocol.StoreEntry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.entryBytes+len(b) > maxTrajectoryEntryBytes {
		t.truncated = true
		return nil
	}
	t.entryBytes += len(b)
	t.entries = append(t.entries, e)
	return nil
}

// BoundInput is the input (JSON text) as recorded: a marker
// {"omitted", "bytes"} for one over MaxInput bytes, null for none or text
// that is not JSON, else a copy.
func BoundInput(in json.RawMessage) json.RawMessage {
	if len(in) > MaxInput {
		return json.RawMessage(fmt.Sprintf(`{"omitted":"input larger than %d bytes","bytes":%d}`, MaxInput, len(in)))
	}
	if len(in) == 0 || !json.Valid(in) {
		return json.RawMessage("null")
	}
	return append(json.RawMessage(nil), in...)
}

// Add records a call that starts now, with its ids and input bounded
// (BoundIDs, BoundInput).
func (t *Log) Add(c protocol.TrajectoryCall) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.calls) >= MaxCalls {
		t.truncated = true
		return
	}
	if t.index == nil {
		t.index = map[string]int{}
	}
	c = BoundIDs(c)
	c.Input = BoundInput(c.Input)
	n := len(c.ToolCallID) + len(c.ParentToolCallID) + len(c.AssistantResponseID) + len(c.Tool) + len(c.CatalogID) + len(c.Input) + 160 // names, quotes, status
	if t.callBytes+n > maxTrajectoryCallBytes {
		t.truncated = true
		return
	}
	t.callBytes += n
	t.index[c.ToolCallID] = len(t.calls)
	t.calls = append(t.calls, c)
}

// Settle sets the status of the recorded call toolCallID ("ok", "error",
// "cancelled", or an exec/wait result status).
func (t *Log) Settle(toolCallID, status string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i, ok := t.index[boundID(toolCallID)]; ok {
		t.calls[i].Status = status
	}
}

// Snapshot is the run.trajectory answer for run: a copy of the calls in the
// order they started and of the store entries.
func (t *Log) Snapshot(run string) protocol.TrajectoryResult {
	t.mu.Lock()
	defer t.mu.Unlock()
	calls := make([]protocol.TrajectoryCall, len(t.calls))
	copy(calls, t.calls)
	return protocol.TrajectoryResult{Run: run, Calls: calls, Truncated: t.truncated, Entries: append([]protocol.StoreEntry(nil), t.entries...)}
}
