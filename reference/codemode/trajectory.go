package codemode

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// Trajectory bounds: a run keeps at most maxTrajectoryCalls entries, and an
// input larger than maxTrajectoryInput bytes is recorded as a marker.
const (
	maxTrajectoryCalls = 4096
	maxTrajectoryInput = 2 << 10 // 4096 × 2 KiB stays well inside the 16 MiB message bound (protocol.md §1)
	// maxTrajectoryCallBytes bounds the encoded calls a run's trajectory
	// keeps: with maxTrajectoryEntryBytes of store entries a run.trajectory
	// answer stays within the 16 MiB message bound whatever the ids.
	maxTrajectoryCallBytes = 8 << 20
)

// MaxCallIDBytes bounds the ids the reference stores and echoes:
// tool.exec/tool.wait toolCallId and assistantResponseId (longer: -32602,
// spec/protocol.md §3), and so the parentToolCallId of nested calls.
const MaxCallIDBytes = 1 << 10

// boundedID is id, or for one over MaxCallIDBytes (a direct tool call id
// from a provider) its first 64 bytes and the hex SHA-256 of all of it.
func boundedID(id string) string {
	if len(id) <= MaxCallIDBytes {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return fmt.Sprintf("%s…sha256:%s", strings.ToValidUTF8(id[:64], ""), hex.EncodeToString(sum[:]))
}

// boundedIDs bounds the ids of c (boundedID).
func boundedIDs(c protocol.TrajectoryCall) protocol.TrajectoryCall {
	c.ToolCallID, c.ParentToolCallID, c.AssistantResponseID = boundedID(c.ToolCallID), boundedID(c.ParentToolCallID), boundedID(c.AssistantResponseID)
	return c
}

// trajectory is a run's tool calls as its transcript would hold them:
// exec/wait calls and, under each, the nested calls made during it as real
// tool calls with the nested tool id (CM-NEST-07, CM-E2E-08).
type trajectory struct {
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

// addEntry appends a store entry to the run's transcript (CM-STO-05). Past
// maxTrajectoryEntryBytes the entry is not kept and the trajectory is marked
// truncated; the commit itself goes ahead (the bound is the reference's
// report bound, not a failed append).
func (t *trajectory) addEntry(e protocol.StoreEntry) error {
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

func boundedInput(in json.RawMessage) json.RawMessage {
	if len(in) > maxTrajectoryInput {
		return json.RawMessage(fmt.Sprintf(`{"omitted":"input larger than %d bytes","bytes":%d}`, maxTrajectoryInput, len(in)))
	}
	if len(in) == 0 || !json.Valid(in) {
		return json.RawMessage("null")
	}
	return append(json.RawMessage(nil), in...)
}

// add records a call that starts now.
func (t *trajectory) add(c protocol.TrajectoryCall) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.calls) >= maxTrajectoryCalls {
		t.truncated = true
		return
	}
	if t.index == nil {
		t.index = map[string]int{}
	}
	c = boundedIDs(c)
	c.Input = boundedInput(c.Input)
	n := len(c.ToolCallID) + len(c.ParentToolCallID) + len(c.AssistantResponseID) + len(c.Tool) + len(c.CatalogID) + len(c.Input) + 160 // names, quotes, status
	if t.callBytes+n > maxTrajectoryCallBytes {
		t.truncated = true
		return
	}
	t.callBytes += n
	t.index[c.ToolCallID] = len(t.calls)
	t.calls = append(t.calls, c)
}

// settle sets the status of a recorded call.
func (t *trajectory) settle(toolCallID, status string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i, ok := t.index[boundedID(toolCallID)]; ok {
		t.calls[i].Status = status
	}
}

func (t *trajectory) snapshot(run string) protocol.TrajectoryResult {
	t.mu.Lock()
	defer t.mu.Unlock()
	calls := make([]protocol.TrajectoryCall, len(t.calls))
	copy(calls, t.calls)
	return protocol.TrajectoryResult{Run: run, Calls: calls, Truncated: t.truncated, Entries: append([]protocol.StoreEntry(nil), t.entries...)}
}

// Traced runs f, the exec or wait call callID of run, and records it in the
// run's trajectory before f starts (so its nested calls follow it) and with
// its result status after. tool is "exec" or "wait".
func (rt *Runtime) Traced(run, tool, callID string, input json.RawMessage, f func() (result.Result, error)) (result.Result, error) {
	return rt.TracedIn(run, tool, callID, "", input, f)
}

// TracedIn is Traced for a call that assistant response responseID carried
// (tool.exec/tool.wait assistantResponseId): under nested-activity the call
// is also written to the session transcript as a model call (activity.go).
func (rt *Runtime) TracedIn(run, tool, callID, responseID string, input json.RawMessage, f func() (result.Result, error)) (result.Result, error) {
	r, ok := rt.run(run)
	call := protocol.TrajectoryCall{ToolCallID: callID, Tool: tool, Input: input, Status: "running", AssistantResponseID: responseID}
	key := ""
	if ok {
		key = r.modelCallKey(callID, responseID, input)
		r.traj.add(call)
		r.persistModelCall(key, call)
	}
	res, err := f()
	if ok {
		status := string(res.Status)
		if err != nil {
			status = "error"
		}
		r.traj.settle(callID, status)
		call.Status = status
		r.persistModelResult(key, call)
	}
	return res, err
}

// Trajectory returns the tool calls of run in the order they started
// (run.trajectory, feature trajectory); ok is false for an unknown run.
func (rt *Runtime) Trajectory(run string) (protocol.TrajectoryResult, bool) {
	r, ok := rt.run(run)
	if !ok {
		return protocol.TrajectoryResult{}, false
	}
	return r.traj.snapshot(run), true
}

// traceNested records a nested call as it is sent.
func (c *cell) traceNested(p protocol.InvokeParams) {
	c.run.traj.add(protocol.TrajectoryCall{ToolCallID: p.ToolCallID, ParentToolCallID: p.ParentToolCallID,
		Tool: p.Tool, CatalogID: p.CatalogID, Input: p.Input, Status: "pending"})
	if c.run.defects.PersistStarts {
		c.persistActivity(context.Background(), p, "pending")
	}
}

// traceSettled records how a nested call ended: "ok", "error" or, when the
// cell or run ended first, "cancelled"; under nested-activity it also
// persists the call's activity row (activity.go, CM-NEST-17).
func (c *cell) traceSettled(ctx context.Context, p protocol.InvokeParams, err error) {
	status := "ok"
	switch {
	case c.callCtx.Err() != nil:
		status = "cancelled"
	case err != nil:
		status = "error"
	}
	c.run.traj.settle(p.ToolCallID, status)
	c.persistActivity(ctx, p, status)
}
