package server

import (
	"context"
	"sync"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Partial updates (feature streaming, CM-NEST-11, spec/protocol.md §4): a
// harness tool sends tool.update while its tool.invoke is outstanding, and
// the reference forwards it at once as tool.progress to the call the model
// made, as for a direct call. Updates of calls that are not outstanding
// (unknown, answered, canceled) are dropped.

// outstanding are the tool.invoke calls awaiting their answer, by run and
// toolCallId, each with the parentToolCallId it was sent with.
type outstanding struct {
	mu sync.Mutex
	m  map[[2]string]string
}

// track records p as outstanding until the returned function is called.
func (o *outstanding) track(p protocol.InvokeParams) (done func()) {
	k := [2]string{p.Run, p.ToolCallID}
	o.mu.Lock()
	if o.m == nil {
		o.m = map[[2]string]string{}
	}
	o.m[k] = p.ParentToolCallID
	o.mu.Unlock()
	return func() {
		o.mu.Lock()
		delete(o.m, k)
		o.mu.Unlock()
	}
}

// parentOf returns the parentToolCallId of the outstanding call, and
// whether it is outstanding.
func (o *outstanding) parentOf(run, toolCallID string) (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	parent, ok := o.m[[2]string{run, toolCallID}]
	return parent, ok
}

// forwardUpdate answers tool.update: the update of an outstanding call
// leaves as tool.progress before the handler returns, so updates keep the
// order they arrived in (jrpc2 finishes a notification's handler before it
// dispatches what came after it).
func (i *invoker) forwardUpdate(ctx context.Context, p *protocol.ToolUpdateParams) error {
	if p == nil || p.Run == "" || p.ToolCallID == "" || len(p.Partial) == 0 {
		return nil
	}
	if len(p.Partial)+len(p.Run)+2*len(p.ToolCallID)+1024 > i.max { // the forward could outgrow the harness's bound (§1)
		return nil
	}
	parent, ok := i.calls.parentOf(p.Run, p.ToolCallID)
	if !ok {
		return nil
	}
	pp := protocol.ProgressParams{Run: p.Run, ToolCallID: parent, NestedToolCallID: p.ToolCallID, Partial: p.Partial}
	if parent == "" { // a direct call of agent.turn: the update is the call's own
		pp.ToolCallID, pp.NestedToolCallID = p.ToolCallID, ""
	}
	i.mu.Lock()
	srv := i.srv
	i.mu.Unlock()
	return srv.Notify(ctx, protocol.MethodToolProgress, pp)
}
