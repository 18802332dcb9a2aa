package codemode

import (
	"context"
	"encoding/json"

	"github.com/codemode-conformance/codemode/reference/trajectory"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// MaxCallIDBytes bounds the ids the reference stores and echoes:
// tool.exec/tool.wait toolCallId and assistantResponseId (longer: -32602,
// spec/protocol.md §3), and so the parentToolCallId of nested calls
// (trajectory.MaxCallIDBytes).
const MaxCallIDBytes = trajectory.MaxCallIDBytes

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
		r.traj.Add(call)
		r.persistModelCall(key, call)
	}
	res, err := f()
	if ok {
		status := string(res.Status)
		if err != nil {
			status = "error"
		}
		r.traj.Settle(callID, status)
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
	return r.traj.Snapshot(run), true
}

// traceNested records a nested call as it is sent.
func (c *cell) traceNested(p protocol.InvokeParams) {
	c.run.traj.Add(protocol.TrajectoryCall{ToolCallID: p.ToolCallID, ParentToolCallID: p.ParentToolCallID,
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
	c.run.traj.Settle(p.ToolCallID, status)
	c.persistActivity(ctx, p, status)
}
