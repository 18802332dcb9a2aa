package bridge

import "sync"

// RunSched is a run catalog's view of its nested calls in flight across all
// its cells, suspended ones included: executionMode ordering spans cells
// (001 [嵌套工具执行], CM-NEST-12). A sequential call leaves only when no
// call of the run is in flight, and while one is in flight no other call of
// the run leaves. Each run has its own, so runs with separate catalogs never
// block each other. It never takes a cell's lock. The zero value is ready;
// Calls.Launch counts the calls it sends.
type RunSched struct {
	mu         sync.Mutex
	active     int           // calls of the run in flight (sent, not returned)
	sequential int           // of them, calls of sequential tools
	changed    chan struct{} // closed when active or sequential falls; nil until watched
}

// Watch returns a channel closed at the next call of the run that returns.
// A cell blocked on another cell's call takes it before it checks, so no
// wake-up is lost.
func (r *RunSched) Watch() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.changed == nil {
		r.changed = make(chan struct{})
	}
	return r.changed
}

// mayStart reports whether a call (sequential or not) may leave now as far
// as the other cells of the run go.
func (r *RunSched) mayStart(sequential bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if sequential {
		return r.active == 0
	}
	return r.sequential == 0
}

// begin counts a call that leaves; end, a call that returned.
func (r *RunSched) begin(sequential bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.active++
	if sequential {
		r.sequential++
	}
}

func (r *RunSched) end(sequential bool) {
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
