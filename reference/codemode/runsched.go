package codemode

import (
	"sync"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// runSched is a run catalog's view of its nested calls in flight across all
// its cells, suspended ones included: executionMode ordering spans cells
// (001 [嵌套工具执行], CM-NEST-12). A sequential call leaves only when no
// call of the run is in flight, and while one is in flight no other call of
// the run leaves. Each run has its own, so runs with separate catalogs never
// block each other. It never takes a cell's lock.
type runSched struct {
	mu         sync.Mutex
	active     int           // calls of the run in flight (sent, not returned)
	sequential int           // of them, calls of sequential tools
	changed    chan struct{} // closed when active or sequential falls; nil until watched
}

// Defects switch on scheduling defects that the specs must catch; only
// fakes/broken sets them.
type Defects struct {
	// CellLocalOrder orders executionMode within each cell only, not
	// across the cells of a run (CM-NEST-12).
	CellLocalOrder bool
	// CellCatalog resolves a cell's nested calls in the catalog of the
	// cell's start, so a restriction spares parked cells (CM-RES-07).
	CellCatalog bool
	// RefillFirst sends queued calls as soon as a slot frees, before the
	// guest has run the continuation of the call that freed it (CM-NEST-15).
	RefillFirst bool
	// TimerFromCall measures a queued guest timer's delay from the
	// setTimeout call, not from when it got a slot (CM-NEST-13).
	TimerFromCall bool
}

// watch returns a channel closed at the next call of the run that returns.
// A cell blocked on another cell's call takes it before it checks, so no
// wake-up is lost.
func (r *runSched) watch() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.changed == nil {
		r.changed = make(chan struct{})
	}
	return r.changed
}

// mayStart reports whether a call (sequential or not) may leave now as far
// as the other cells of the run go.
func (r *runSched) mayStart(sequential bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if sequential {
		return r.active == 0
	}
	return r.sequential == 0
}

// begin counts a call that leaves; end, a call that returned.
func (r *runSched) begin(sequential bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.active++
	if sequential {
		r.sequential++
	}
}

func (r *runSched) end(sequential bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.active--
	if sequential {
		r.sequential--
	}
	if r.changed != nil {
		close(r.changed)
		r.changed = nil
	}
}

// sequentialTool reports whether the catalog's tool toolID runs sequential
// under feature execution-mode (CM-NEST-06, CM-NEST-12).
func (s *step) sequentialTool(toolID string) bool {
	if !s.rt.opts.HasFeature("execution-mode") {
		return false
	}
	t, ok := s.c.run.catalog().Lookup(toolID)
	return ok && t.Spec.ExecutionMode == protocol.ExecutionSequential
}
