package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// router sends each tool.invoke to the tool set of the run it names, and
// each tool.cancel to the invocation it names (CM-NEST-08).
//
// It answers only nested calls that guest code could have made through the
// runtime, and refuses (a -32010 tool error, recorded as a RefusedInvoke)
// any tool.invoke that is
//   - for a run never prepared on this connection, or one that has ended;
//   - not nested: its parentToolCallId names neither a tool.exec/tool.wait of
//     the run that is still outstanding nor one that drove a cell of the run
//     that is now suspended (its exec/wait returned waiting; nested calls
//     keep running while the cell is suspended, protocol.md §4);
//   - for a tool the guest cannot reach under the run's run.prepare (see
//     callable: undeclared, policy, disableTools, raw, control, mcp).
//
// A nested call the guest made just before its cell ended may reach the
// wire just after the exec/wait answer (a target starts nested calls
// asynchronously; the reference does): an invoke whose parent was answered
// less than lateGrace before it arrived is still nested. After run.end was
// answered nothing of the run is run any more: such a late call is refused
// too, but not recorded as forged (a conforming target can still write a
// call its guest started just before the cell ended; the reference does).
//
// A target that sends more than maxFloodRefusals refused invokes on one
// connection is abandoned (onFlood): answering a flood would break the
// spec's deadline and the harness's memory.
//
// The run and nesting checks are taken when the invoke arrives, in wire
// order (arrive), because jrpc2 runs the callback later in its own goroutine:
// by then the exec that made the call may already have been answered.
type router struct {
	mu   sync.Mutex
	runs map[string]*routedRun
	// arrived holds the verdicts taken by arrive, oldest first, until the
	// callback for the same run and toolCallId takes them (nil: admitted).
	arrived  map[string][]*RefusedInvoke
	nArrived int
	refused  []RefusedInvoke
	// onRefuse, if set, is told of every refusal (Connect records them for
	// the running spec).
	onRefuse func(RefusedInvoke)
	// notify sends a notification to the target (tool.update, streaming.go).
	notify func(ctx context.Context, method string, params any) error
	// nRefusals counts the refused invokes that arrived; once it passes
	// maxFloodRefusals, flooded is set and onFlood (if set) runs once, in
	// its own goroutine (it may close the connection whose reader called
	// arrive).
	nRefusals int
	flooded   bool
	onFlood   func(reason string)
}

// maxArrived bounds the verdicts waiting for their callback, and maxRefused
// the refusals a router keeps: a hostile target cannot grow either without
// limit (beyond them, verdicts are taken when the callback runs).
const (
	maxArrived = 4096
	maxRefused = 1000
	lateGrace  = 2 * time.Second
	// maxFloodRefusals is how many refused tool.invoke calls one target
	// connection may send before the harness stops answering and abandons
	// the target (CM-SEC-05: a forged call is already a failure; more than
	// this is a flood).
	maxFloodRefusals = 1000
)

// floodReason is the failure of a spec during which the target flooded the
// harness with refused invokes.
var floodReason = fmt.Sprintf("the target sent more than %d refused tool.invoke calls on one connection; the harness stopped answering and killed it", maxFloodRefusals)

type routedRun struct {
	set  *tools.Set
	prep protocol.PrepareParams
	// ended is set once run.end was answered (or the spec that owned the
	// run finished): every later nested call is refused, late or not.
	ended bool
	// answered is when each exec/wait of the run was answered, for the
	// last lateGrace.
	answered map[string]time.Time
	// parents counts the run's outstanding tool.exec/tool.wait calls by
	// toolCallId.
	parents map[string]int
	// cells are the run's suspended cells by runId.
	cells map[string]*suspendedCell
	// inflight cancels running invocations by toolCallId; canceled remembers
	// cancels that arrived before their invocation (the notification and the
	// callback race on the wire).
	inflight map[string][]*inflightCall
	canceled map[string]bool
	// afterEnd are the invokes that arrived after the answer that ended
	// the cell of their parent (see noteAfterEndLocked).
	afterEnd []protocol.InvokeParams
	// turns counts the run's outstanding agent.turn calls, turnDone is when
	// the last one was answered (turn.go).
	turns    int
	turnDone time.Time
	// visible is the run's model-visible surface (run.prepare's tools):
	// the only tools a turn may call directly, with parentToolCallId "".
	visible map[string]bool
	// removed names the tools a run.update took out of the run, by
	// source:owner:name, with the operation (runupdate.go).
	removed map[string]string
}

// suspendedCell is a cell whose last exec/wait returned waiting: calls are
// the toolCallIds of the exec and waits that drove it (the parents its
// nested calls may name), waits the waits on it now outstanding.
type suspendedCell struct {
	calls map[string]bool
	waits int
}

// inflightCall is one running invocation; a target that reuses a toolCallId
// gets one entry per invocation, and tool.cancel stops all of them.
type inflightCall struct{ cancel context.CancelFunc }

func newRouter() *router {
	return &router{runs: map[string]*routedRun{}, arrived: map[string][]*RefusedInvoke{}}
}

// add registers a prepared run (before run.prepare is sent). A run id
// prepared again (after RestartTarget) starts afresh.
func (r *router) add(run string, prep protocol.PrepareParams, s *tools.Set) {
	r.mu.Lock()
	r.runs[run] = &routedRun{set: s, prep: prep, parents: map[string]int{}, cells: map[string]*suspendedCell{}, answered: map[string]time.Time{},
		inflight: map[string][]*inflightCall{}, canceled: map[string]bool{}}
	r.mu.Unlock()
}

// end marks a run ended: its cells are gone and nested calls are refused.
func (r *router) end(run string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rr, ok := r.runs[run]; ok {
		rr.ended = true
		rr.cells = map[string]*suspendedCell{}
	}
}

// aborted forgets the run's suspended cells (run.abort ends them).
func (r *router) aborted(run string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rr, ok := r.runs[run]; ok {
		rr.cells = map[string]*suspendedCell{}
	}
}

// begin records an exec (cell "") or a wait on cell about to be sent with
// toolCallId call. Call it before the request is written.
func (r *router) begin(run, call, cell string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rr, ok := r.runs[run]
	if !ok {
		return
	}
	rr.parents[call]++
	if c := rr.cells[cell]; cell != "" && c != nil {
		c.waits++
	}
}

// finish records the answer to a call begun with begin: res is nil when
// the call failed at the protocol level. A waiting result suspends the cell
// it names; any other answer of a wait ends the cell it resumed, unless
// another wait on it is still outstanding.
func (r *router) finish(run, call, cell string, res *result.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rr, ok := r.runs[run]
	if !ok {
		return
	}
	if rr.parents[call]--; rr.parents[call] <= 0 {
		delete(rr.parents, call)
	}
	now := time.Now()
	for id, at := range rr.answered {
		if now.Sub(at) > lateGrace {
			delete(rr.answered, id)
		}
	}
	rr.answered[call] = now
	if c := rr.cells[cell]; cell != "" && c != nil {
		c.waits--
	}
	if rr.ended {
		return
	}
	switch {
	case res != nil && res.Status == result.StatusWaiting && res.RunID != "":
		c := rr.cells[res.RunID]
		if c == nil {
			c = &suspendedCell{calls: map[string]bool{}}
			rr.cells[res.RunID] = c
		}
		c.calls[call] = true
		if prev := rr.cells[cell]; cell != "" && cell != res.RunID && prev != nil {
			for id := range prev.calls {
				c.calls[id] = true
			}
		}
	case cell != "" && res != nil:
		if c := rr.cells[cell]; c != nil && c.waits <= 0 {
			delete(rr.cells, cell)
		}
	}
}

// arrive takes the verdict on an invoke as it arrives on the wire.
// Past maxFloodRefusals refusals it marks the router flooded and calls
// onFlood once.
//
// A refusal is recorded (onRefuse) here, at arrival, so that it is charged
// to the spec during which it arrived: jrpc2 runs the callback later, on a
// goroutine of its own, when the spec that caused it may have ended and the
// next one begun (which then failed for a forged call it never caused).
func (r *router) arrive(p protocol.InvokeParams) {
	r.mu.Lock()
	if r.flooded {
		r.mu.Unlock()
		return
	}
	r.noteAfterEndLocked(p)
	v := r.checkLocked(p)
	if v != nil && !v.late {
		if r.nRefusals++; r.nRefusals > maxFloodRefusals {
			r.flooded = true
			if r.onFlood != nil {
				go r.onFlood(floodReason)
			}
			r.mu.Unlock()
			return
		}
	}
	if r.nArrived >= maxArrived {
		r.mu.Unlock()
		return // the callback takes the verdict, and records it
	}
	k := p.Run + "\x00" + p.ToolCallID
	r.arrived[k] = append(r.arrived[k], v)
	r.nArrived++
	var hook func(RefusedInvoke)
	if v != nil && !v.late {
		v.recorded = true
		if len(r.refused) < maxRefused {
			r.refused = append(r.refused, *v)
		}
		hook = r.onRefuse
	}
	r.mu.Unlock()
	if hook != nil {
		hook(*v)
	}
}

// malformed records a tool.invoke whose params break spec/protocol.md §4
// (protocol.NewClient answers it -32602 and runs nothing) as a refusal of
// the running spec; it counts toward a flood like any refusal.
func (r *router) malformed(p protocol.InvokeParams, raw json.RawMessage, err error) {
	x := RefusedInvoke{Run: p.Run, Tool: p.Tool, ToolCallID: p.ToolCallID, Parent: p.ParentToolCallID,
		Reason: err.Error() + " (spec/protocol.md §4)", Requirements: []string{"CM-NEST-01"}, Request: boundedJSON(raw)}
	r.mu.Lock()
	if r.flooded {
		r.mu.Unlock()
		return
	}
	if r.nRefusals++; r.nRefusals > maxFloodRefusals {
		r.flooded = true
		if r.onFlood != nil {
			go r.onFlood(floodReason)
		}
		r.mu.Unlock()
		return
	}
	if len(r.refused) < maxRefused {
		r.refused = append(r.refused, x)
	}
	hook := r.onRefuse
	r.mu.Unlock()
	if hook != nil {
		hook(x)
	}
}

// maxEvidenceBytes bounds the copy of a target's message that a refusal
// keeps for reports.
const maxEvidenceBytes = 2000

// boundedJSON returns raw, or, when it is longer than maxEvidenceBytes, a
// JSON string of its start and its size: reports never copy a target's
// message whole.
func boundedJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) <= maxEvidenceBytes {
		return raw
	}
	cut := maxEvidenceBytes
	for cut > 0 && !utf8.RuneStart(raw[cut]) {
		cut--
	}
	b, _ := json.Marshal(fmt.Sprintf("%s… (%d bytes in all)", raw[:cut], len(raw)))
	return b
}

// checkLocked returns the refusal of p under the current state, or nil.
func (r *router) checkLocked(p protocol.InvokeParams) *RefusedInvoke {
	req, _ := json.Marshal(p)
	x := &RefusedInvoke{Run: p.Run, Tool: p.Tool, ToolCallID: p.ToolCallID, Parent: p.ParentToolCallID, Request: boundedJSON(req)}
	var why []string
	add := func(reason string, reqs ...string) {
		why = append(why, reason)
		for _, q := range reqs {
			if !contains(x.Requirements, q) {
				x.Requirements = append(x.Requirements, q)
			}
		}
	}
	rr, ok := r.runs[p.Run]
	switch {
	case !ok:
		add(fmt.Sprintf("no run %q was prepared on this connection", p.Run), "CM-ACT-05", "CM-SEC-05")
	case rr.ended:
		add(fmt.Sprintf("run %q has ended", p.Run), "CM-ACT-05", "CM-SEC-05")
		x.late = rr.late(p.ParentToolCallID)
	default:
		if rr.parents[p.ParentToolCallID] == 0 && !rr.drove(p.ParentToolCallID) && !rr.late(p.ParentToolCallID) && !rr.inTurn() {
			add(fmt.Sprintf("parentToolCallId %q is neither an outstanding tool.exec/tool.wait of the run nor one that drove a cell of it that is now suspended: guest code of this run was not running", p.ParentToolCallID),
				"CM-GUEST-05", "CM-SEC-05")
		}
		if p.ParentToolCallID == "" && rr.inTurn() && !rr.visible[p.Tool] {
			add(fmt.Sprintf("a direct call (no parentToolCallId) of tool %q, which is not in the run's model-visible surface: only exec/wait's guest code may call hidden tools", p.Tool),
				"CM-ACT-02", "CM-E2E-02")
		}
		if op, gone := rr.removed[p.Source+":"+p.Owner+":"+p.Tool]; gone {
			add(fmt.Sprintf("run.update %s removed tool %s:%s:%s from the run's catalog", op, p.Source, p.Owner, p.Tool), "CM-RES-07")
		} else if reason, reqs := callable(rr.prep, p.Source, p.Owner, p.Tool); reason != "" {
			add(reason, reqs...)
		}
	}
	if len(why) == 0 {
		return nil
	}
	x.Reason = strings.Join(why, "; ")
	return x
}

// late reports whether call was answered less than lateGrace ago.
func (rr *routedRun) late(call string) bool {
	at, ok := rr.answered[call]
	return ok && time.Since(at) <= lateGrace
}

// drove reports whether call drove a cell of the run that is suspended now.
func (rr *routedRun) drove(call string) bool {
	for _, c := range rr.cells {
		if c.calls[call] {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// verdict returns the verdict arrive took for p, or takes it now.
func (r *router) verdictLocked(p protocol.InvokeParams) *RefusedInvoke {
	k := p.Run + "\x00" + p.ToolCallID
	if list := r.arrived[k]; len(list) > 0 {
		v := list[0]
		if len(list) == 1 {
			delete(r.arrived, k)
		} else {
			r.arrived[k] = list[1:]
		}
		r.nArrived--
		return v
	}
	return r.checkLocked(p)
}

// unanswered returns the refusals arrive took for invokes whose callback
// never ran (the connection closed first: jrpc2 drops a callback that
// arrives after the client stopped), and forgets them. Call it only once
// the client is closed, so that no callback can still take them.
func (r *router) unanswered() []RefusedInvoke {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []RefusedInvoke
	for _, list := range r.arrived {
		for _, x := range list {
			if x != nil && !x.late && !x.recorded {
				out = append(out, *x)
			}
		}
	}
	r.arrived, r.nArrived = map[string][]*RefusedInvoke{}, 0
	return out
}

// Refused lists the invokes this router refused (at most maxRefused).
func (r *router) Refused() []RefusedInvoke {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]RefusedInvoke(nil), r.refused...)
}

func (r *router) invoke(ctx context.Context, p protocol.InvokeParams) (json.RawMessage, error) {
	r.mu.Lock()
	if r.flooded {
		r.mu.Unlock()
		return nil, protocol.ToolError("harness: refused tool.invoke: "+floodReason, nil)
	}
	if x := r.verdictLocked(p); x != nil {
		if x.late {
			r.mu.Unlock()
			return nil, protocol.ToolError("harness: refused tool.invoke: "+x.Reason, nil)
		}
		var hook func(RefusedInvoke)
		if !x.recorded { // taken now, not at arrival (arrive's bound was reached)
			if len(r.refused) < maxRefused {
				r.refused = append(r.refused, *x)
			}
			hook = r.onRefuse
		}
		r.mu.Unlock()
		if hook != nil {
			hook(*x)
		}
		return nil, protocol.ToolError("harness: refused tool.invoke: "+x.Reason, nil)
	}
	rr := r.runs[p.Run]
	var cancel context.CancelFunc
	ctx, cancel = context.WithCancel(ctx)
	defer cancel()
	if rr.canceled[p.ToolCallID] {
		delete(rr.canceled, p.ToolCallID) // an early cancel applies once
		cancel()
	}
	me := &inflightCall{cancel: cancel}
	rr.inflight[p.ToolCallID] = append(rr.inflight[p.ToolCallID], me)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		list := rr.inflight[p.ToolCallID]
		for i, c := range list {
			if c == me {
				list = append(list[:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(rr.inflight, p.ToolCallID)
		} else {
			rr.inflight[p.ToolCallID] = list
		}
		r.mu.Unlock()
	}()
	return rr.set.Invoke(r.withUpdater(ctx, p), p)
}

func (r *router) cancel(p protocol.CancelParams) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rr, ok := r.runs[p.Run]
	if !ok {
		return
	}
	if list := rr.inflight[p.ToolCallID]; len(list) > 0 {
		for _, c := range list {
			c.cancel()
		}
		return
	}
	if len(rr.canceled) < 4096 { // bounded: a hostile target cannot grow it without limit
		rr.canceled[p.ToolCallID] = true
	}
}

// beginTurn and finishTurn bracket an agent.turn of run. During a turn the
// target makes its own exec/wait calls (the model's, with the provider's
// call ids) and direct tool calls (no parentToolCallId), so the harness
// cannot check nesting against its own requests: any parent is admitted
// until lateGrace after the turn was answered. Policy still applies
// (callable).
func (r *router) beginTurn(run string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rr, ok := r.runs[run]; ok {
		rr.turns++
	}
}

func (r *router) finishTurn(run string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rr, ok := r.runs[run]; ok {
		rr.turns--
		rr.turnDone = time.Now()
	}
}

// inTurn reports whether an agent.turn of the run is outstanding or was
// answered less than lateGrace ago.
func (rr *routedRun) inTurn() bool {
	return rr.turns > 0 || (!rr.turnDone.IsZero() && time.Since(rr.turnDone) <= lateGrace)
}

// surface records the model-visible tools run.prepare returned for run.
func (r *router) surface(run string, tools []protocol.ModelTool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rr, ok := r.runs[run]; ok {
		rr.visible = map[string]bool{}
		for _, t := range tools {
			rr.visible[t.Name] = true
		}
	}
}
