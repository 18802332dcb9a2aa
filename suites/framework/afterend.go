package framework

import "github.com/codemode-conformance/codemode/spec/protocol"

// maxAfterEnd bounds the invokes after the end a run keeps.
const maxAfterEnd = 100

// noteAfterEndLocked records p when it arrives after its parent
// tool.exec/tool.wait was answered and that answer ended the cell: the
// parent is no longer outstanding and drove no cell that is suspended now
// (CM-NEST-23: no nested call is dispatched after a cell's outcome is
// determined). Called by arrive, in wire order, with r.mu held.
func (r *router) noteAfterEndLocked(p protocol.InvokeParams) {
	rr, ok := r.runs[p.Run]
	if !ok || len(rr.afterEnd) >= maxAfterEnd {
		return
	}
	if _, answered := rr.answered[p.ParentToolCallID]; !answered && !rr.ended {
		return
	}
	if rr.parents[p.ParentToolCallID] > 0 || rr.drove(p.ParentToolCallID) {
		return
	}
	rr.afterEnd = append(rr.afterEnd, p)
}

// InvokesAfterEnd lists the tool.invoke calls of this run that arrived
// after the exec/wait answer that ended their cell (completed or failed),
// in arrival order (CM-NEST-23). An invoke that arrives more than 2 s after
// that answer is also refused (see router).
func (r *Run) InvokesAfterEnd() []protocol.InvokeParams {
	rt := T().router
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rr, ok := rt.runs[r.ID]; ok {
		return append([]protocol.InvokeParams(nil), rr.afterEnd...)
	}
	return nil
}
