package codemode

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/reference/store"
	"github.com/codemode-conformance/codemode/reference/trajectory"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Nested activity (feature nested-activity, 001 [嵌套工具执行],
// spec/protocol.md §4.2, CM-NEST-17..19): completed nested calls persist in
// the session transcript as bounded display-only rows with their original
// ids; the model calls persist as what the provider replays; nested ids
// derive from the cell's replay identity; a before_message_write hook may
// suppress a row without undoing the call.

// messageHookTimeout bounds one hook.beforeMessageWrite or hook.agentEnd
// round trip (spec/protocol.md §4.2): a harness that never answers delays
// a row or run.end by at most this, and the row is then written (an error
// counts as write); the server forgets the callback then.
const messageHookTimeout = protocol.MessageHookBudget

// endSettle bounds how long run.end waits for the run's nested calls that
// its end cancelled to record their rows before hook.agentEnd.
const endSettle = 2 * time.Second

// MessageHooker sends the message hooks (hook.beforeMessageWrite,
// hook.agentEnd) to the host. An Invoker that also implements it serves
// them.
type MessageHooker interface {
	BeforeMessageWrite(ctx context.Context, p protocol.MessageWriteParams) (protocol.MessageWriteResult, error)
	AgentEnd(ctx context.Context, p protocol.AgentEndParams) error
}

// activityLog is what a run keeps for hook.agentEnd: the nested calls that
// ran (bounded like the trajectory) and the nested calls still recording
// their rows.
type activityLog struct {
	mu        sync.Mutex
	executed  []string
	truncated bool
	busy      int
	idle      chan struct{} // closed when busy drops to 0; nil while 0
}

func (a *activityLog) begin() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.busy == 0 {
		a.idle = make(chan struct{})
	}
	a.busy++
}

func (a *activityLog) end() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.busy--; a.busy == 0 {
		close(a.idle)
		a.idle = nil
	}
}

// settled waits until no nested call of the run is recording, or d passed.
func (a *activityLog) settled(d time.Duration) {
	a.mu.Lock()
	idle := a.idle
	a.mu.Unlock()
	if idle == nil {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	}
}

// prepareHistory binds run to its session branch's transcript under
// nested-activity: (sessionId, sessionKey, session.branch or "").
func (rt *Runtime) prepareHistory(run *agentRun, p protocol.PrepareParams) {
	if !rt.opts.HasFeature("nested-activity") {
		return
	}
	b := store.Branch{SessionID: p.SessionID, SessionKey: p.SessionKey}
	if p.Session != nil {
		b.Name = p.Session.Branch
	}
	run.history = &b
	run.transcripts = &rt.transcripts
	run.hooker, _ = rt.inv.(MessageHooker)
	run.defects = rt.opts.Defects
}

// replayID is the replay identity of a cell that exec call toolCallID of
// run r starts with input, carried by assistant response responseID: a hash
// of the run, the response, the call id and the input, never of the cell's
// runId, so that a replay of the same call (same input) gets the same
// nested ids, and a call id reused in another response or with other input
// gets others (CM-NEST-18). "" without nested-activity.
func (rt *Runtime) replayID(r *agentRun, toolCallID, responseID string, input json.RawMessage) string {
	if r.history == nil {
		return ""
	}
	if rt.opts.Defects.ReplayIgnoresResponse {
		responseID = ""
	}
	if rt.opts.Defects.ReplayIgnoresInput {
		input = nil
	}
	return replayIdentity(r.id, r.instance, responseID, toolCallID, input)
}

// replayIDOf is replayID for run's exec call (tests).
func (rt *Runtime) replayIDOf(run, toolCallID, responseID string, input json.RawMessage) string {
	r, ok := rt.run(run)
	if !ok {
		return ""
	}
	return rt.replayID(r, toolCallID, responseID, input)
}

// replayIdentity is "cm_replay_" and 24 hex digits of the SHA-256 of the
// JSON array [run, instance, responseID, toolCallID, input], input
// compacted JSON text (as sent when it is not valid JSON). instance tells
// apart runs that reused an ended run's id (agentRun.instance).
func replayIdentity(run string, instance uint64, responseID, toolCallID string, input json.RawMessage) string {
	id, _ := json.Marshal([]any{run, instance, responseID, toolCallID, compactInput(input)})
	sum := sha256.Sum256(id)
	return "cm_replay_" + hex.EncodeToString(sum[:12])
}

// compactInput is in without insignificant whitespace, so that a replay
// re-encoded by the harness keeps its identity.
func compactInput(in json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, in) != nil {
		return string(in)
	}
	return b.String()
}

// modelCallKey is what the session transcript keys a model call by: its
// replay identity (run, response, call id, input). A repeat with the same
// key is the call replayed; a repeat of the ids with other input is another
// call and keeps its own entry (CM-NEST-18).
func (r *agentRun) modelCallKey(toolCallID, responseID string, input json.RawMessage) string {
	if r.history == nil {
		return ""
	}
	return replayIdentity(r.id, r.instance, responseID, toolCallID, input)
}

// LiveReplay reports whether exec call toolCallID of assistant response
// responseID started a cell of run that is still live (running, waiting or
// resuming): a repeat of the pair then would put two cells' nested calls
// under the same ids, so the server refuses it (spec/protocol.md §4.2).
// Always false without nested-activity.
func (rt *Runtime) LiveReplay(run, toolCallID, responseID string) bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	r := rt.runs[run]
	if r == nil || r.history == nil || rt.opts.Defects.ReplayWhileLive {
		return false
	}
	for _, c := range rt.cells {
		if c.run == r && c.origin == [2]string{responseID, toolCallID} {
			return true
		}
	}
	return false
}

// TraceDirect writes a direct tool call of the model (agent.turn) to the
// session transcript as a model call as it starts; the returned func
// writes its outcome (ok, or error for a non-nil err). A no-op without
// nested-activity or for an unknown run.
func (rt *Runtime) TraceDirect(run, toolCallID, responseID, tool string, input json.RawMessage) func(err error) {
	r, ok := rt.run(run)
	if !ok || r.history == nil {
		return func(error) {}
	}
	call := protocol.TrajectoryCall{ToolCallID: toolCallID, AssistantResponseID: responseID, Tool: tool, Input: input, Status: "pending"}
	key := r.modelCallKey(toolCallID, responseID, input)
	r.persistModelCall(key, call)
	return func(err error) {
		call.Status = "ok"
		if err != nil {
			call.Status = "error"
		}
		r.persistModelResult(key, call)
	}
}

// persistModelCall writes a model call (exec/wait) to the session
// transcript as it starts, keyed by key (modelCallKey); persistModelResult
// its result status.
func (r *agentRun) persistModelCall(key string, c protocol.TrajectoryCall) {
	r.persist(store.EntryModelCall, key, c)
}

func (r *agentRun) persistModelResult(key string, c protocol.TrajectoryCall) {
	r.persist(store.EntryModelResult, key, protocol.TrajectoryCall{ToolCallID: c.ToolCallID, AssistantResponseID: c.AssistantResponseID, Tool: c.Tool, Status: c.Status})
}

func (r *agentRun) persist(kind, key string, c protocol.TrajectoryCall) {
	if r.history == nil {
		return
	}
	c = trajectory.BoundIDs(c)
	c.Input = trajectory.BoundInput(c.Input)
	_ = r.transcripts.Append(*r.history, store.Entry{Type: kind, Run: r.id, Instance: r.instance, Key: key, Call: c})
}

// noteExecuted records that nested call id ran (its tool was invoked):
// hook.agentEnd lists it even when its row was suppressed (CM-NEST-19).
func (c *cell) noteExecuted(id string) {
	r := c.run
	if r.history == nil {
		return
	}
	r.activity.mu.Lock()
	defer r.activity.mu.Unlock()
	if len(r.activity.executed) >= trajectory.MaxCalls {
		r.activity.truncated = true
		return
	}
	r.activity.executed = append(r.activity.executed, id)
}

// persistActivity writes the row of the completed nested call p (status ok,
// error or cancelled) to the session transcript, unless the run's
// before_message_write hook suppresses it. Starts and partial updates are
// never written. Called before the result reaches the guest, so a settled
// cell's rows are all written.
func (c *cell) persistActivity(ctx context.Context, p protocol.InvokeParams, status string) {
	r := c.run
	if r.history == nil {
		return
	}
	r.activity.begin()
	defer r.activity.end()
	row := trajectory.BoundIDs(protocol.TrajectoryCall{ToolCallID: p.ToolCallID, ParentToolCallID: p.ParentToolCallID, Tool: p.Tool,
		CatalogID: p.CatalogID, Input: trajectory.BoundInput(p.Input), Status: status, DisplayOnly: true})
	if r.gate.messageWrite && r.hooker != nil {
		hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), messageHookTimeout)
		res, err := r.hooker.BeforeMessageWrite(hctx, protocol.MessageWriteParams{Run: r.id, Row: row})
		cancel()
		if err == nil && res.Decision == protocol.MessageSuppress {
			if r.defects.SuppressedInAgentEnd {
				r.activity.mu.Lock()
				r.suppressed = append(r.suppressed, row)
				r.activity.mu.Unlock()
			}
			return // never persisted; the call and its effects stand
		}
	}
	_ = r.transcripts.Append(*r.history, store.Entry{Type: store.EntryNestedActivity, Run: r.id, Instance: r.instance, Call: row})
}

// ErrBadView is returned by TrajectoryView for a view the profile does not
// serve.
var ErrBadView = fmt.Errorf("unknown run.trajectory view")

// TrajectoryView answers run.trajectory with a view (spec/protocol.md
// §4.2): "" or calls is Trajectory; activity and replay (feature
// nested-activity) are the session's history, reloaded from the persisted
// transcript first when reload is set. ok is false for an unknown run; err
// wraps ErrBadView for a view that is not served.
func (rt *Runtime) TrajectoryView(run, view string, reload bool) (protocol.TrajectoryResult, bool, error) {
	r, ok := rt.run(run)
	if !ok {
		return protocol.TrajectoryResult{}, false, nil
	}
	if view == "" || view == protocol.TrajectoryViewCalls {
		return r.traj.Snapshot(run), true, nil
	}
	if !rt.opts.HasFeature("nested-activity") || (view != protocol.TrajectoryViewActivity && view != protocol.TrajectoryViewReplay) {
		return protocol.TrajectoryResult{}, true, fmt.Errorf("%w %q: this target serves %s", ErrBadView, view, rt.views())
	}
	if r.history == nil { // an inactive run: no cell, no history of its own
		return protocol.TrajectoryResult{Run: run, Calls: []protocol.TrajectoryCall{}}, true, nil
	}
	if reload {
		rt.transcripts.Reload(*r.history)
	}
	h := rt.transcripts.History(*r.history)
	out := protocol.TrajectoryResult{Run: run, Calls: h.Activity, Truncated: h.Truncated}
	if view == protocol.TrajectoryViewReplay {
		out.Calls = h.Replay
		if rt.opts.Defects.ReplayActivity {
			out.Calls = append(out.Calls, h.Activity...)
		}
	}
	return out, true, nil
}

func (rt *Runtime) views() string {
	if rt.opts.HasFeature("nested-activity") {
		return "views calls, activity and replay"
	}
	return "only view calls (nested-activity is not declared)"
}

// EndRun is End for run.end: under nested-activity, once the run's cells
// ended and their nested calls recorded their rows (at most endSettle), it
// sends hook.agentEnd when the run opted in, with the accepted activity
// read from the transcript and every nested call that ran (CM-NEST-19).
func (rt *Runtime) EndRun(ctx context.Context, run string) bool {
	r, _ := rt.run(run)
	if !rt.End(run) {
		return false
	}
	if r == nil || r.history == nil || !r.gate.agentEnd || r.hooker == nil {
		return true
	}
	r.activity.settled(endSettle)
	p := protocol.AgentEndParams{Run: run, Activity: rt.transcripts.RunActivity(*r.history, run, r.instance)}
	r.activity.mu.Lock()
	p.ExecutedToolCallIDs = append([]string{}, r.activity.executed...)
	p.Truncated = r.activity.truncated
	p.Activity = append(p.Activity, r.suppressed...) // only with Defects.SuppressedInAgentEnd
	r.activity.mu.Unlock()
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), messageHookTimeout)
	defer cancel()
	_ = r.hooker.AgentEnd(hctx, p)
	return true
}
