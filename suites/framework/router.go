package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// router sends each tool.invoke to the tool set of the run it names, and
// each tool.cancel to the invocation it names (CM-NEST-08).
type router struct {
	mu   sync.Mutex
	runs map[string]*routedRun
}

type routedRun struct {
	set *tools.Set
	// inflight cancels running invocations by toolCallId; canceled remembers
	// cancels that arrived before their invocation (the notification and the
	// callback race on the wire).
	inflight map[string][]*inflightCall
	canceled map[string]bool
}

// inflightCall is one running invocation; a target that reuses a toolCallId
// gets one entry per invocation, and tool.cancel stops all of them.
type inflightCall struct{ cancel context.CancelFunc }

func newRouter() *router { return &router{runs: map[string]*routedRun{}} }

func (r *router) add(run string, s *tools.Set) {
	r.mu.Lock()
	r.runs[run] = &routedRun{set: s, inflight: map[string][]*inflightCall{}, canceled: map[string]bool{}}
	r.mu.Unlock()
}

func (r *router) remove(run string) {
	r.mu.Lock()
	delete(r.runs, run)
	r.mu.Unlock()
}

func (r *router) invoke(ctx context.Context, p protocol.InvokeParams) (json.RawMessage, error) {
	r.mu.Lock()
	rr, ok := r.runs[p.Run]
	var me *inflightCall
	if ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		if rr.canceled[p.ToolCallID] {
			delete(rr.canceled, p.ToolCallID) // an early cancel applies once
			cancel()
		}
		me = &inflightCall{cancel: cancel}
		rr.inflight[p.ToolCallID] = append(rr.inflight[p.ToolCallID], me)
	}
	r.mu.Unlock()
	if !ok {
		return nil, protocol.ToolError(fmt.Sprintf("harness: no active run %q", p.Run), nil)
	}
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
	return rr.set.Invoke(ctx, p)
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
