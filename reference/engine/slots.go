package engine

import (
	"context"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Quantum is how long a VM may execute guest code while other VMs wait for
// a run slot before it hands its slot over at its next interrupt poll.
var Quantum = 5 * time.Millisecond

// runSlots bounds the VMs of the process that execute guest code at the
// same moment (SetMaxRunning). Live VMs are bounded elsewhere (memory);
// this bounds CPU: without it, hundreds of spinning cells are hundreds of
// runnable goroutines and a control request's handler waits behind them in
// Go's run queue for seconds. A VM takes a slot before it enters wasm
// (guard.go) and gives it back when the call returns; at each interrupt
// poll (host.go, oom.go) a VM that has held its slot for Quantum while
// others wait hands it to the first waiter and queues again, so every live
// cell progresses. Waiters are parked on a channel, not runnable.
var runSlots slots

// SetMaxRunning sets how many VMs of the process execute guest code at the
// same moment (codemode-reference serve --max-running-vms); n <= 0 means
// the default, runtime.GOMAXPROCS(0). Set it before VMs run: a lower limit
// applies as running VMs hand their slots back.
func SetMaxRunning(n int) {
	runSlots.mu.Lock()
	runSlots.max = n
	runSlots.mu.Unlock()
	runSlots.grantWaiters()
}

// MaxRunning is the current limit of SetMaxRunning.
func MaxRunning() int {
	runSlots.mu.Lock()
	defer runSlots.mu.Unlock()
	return runSlots.limit()
}

// slots is a FIFO counting semaphore that hands a released slot directly to
// the oldest waiter.
type slots struct {
	mu      sync.Mutex
	max     int // <= 0: GOMAXPROCS
	busy    int
	queue   []chan struct{} // closed when the slot is handed over
	waiting atomic.Int32    // len(queue), read without the lock by polls
}

func (s *slots) limit() int {
	if s.max > 0 {
		return s.max
	}
	return goruntime.GOMAXPROCS(0)
}

// acquire takes a slot, waiting in FIFO order (first, with urgent); it
// returns false, holding nothing, once done is closed first.
func (s *slots) acquire(done <-chan struct{}, urgent bool) bool {
	s.mu.Lock()
	if s.busy < s.limit() && len(s.queue) == 0 {
		s.busy++
		s.mu.Unlock()
		return true
	}
	w := make(chan struct{})
	if urgent {
		s.queue = append([]chan struct{}{w}, s.queue...)
	} else {
		s.queue = append(s.queue, w)
	}
	s.waiting.Add(1)
	s.mu.Unlock()
	select {
	case <-w:
		return true
	case <-done:
	}
	s.mu.Lock()
	for i, q := range s.queue {
		if q == w {
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			s.waiting.Add(-1)
			s.mu.Unlock()
			return false
		}
	}
	s.mu.Unlock()
	// Handed over as done closed: pass it on.
	s.release()
	return false
}

// release gives a slot back: to the oldest waiter if any.
func (s *slots) release() {
	s.mu.Lock()
	s.busy--
	s.mu.Unlock()
	s.grantWaiters()
}

// grantWaiters hands free slots to waiters, oldest first.
func (s *slots) grantWaiters() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.queue) > 0 && s.busy < s.limit() {
		w := s.queue[0]
		s.queue = s.queue[1:]
		s.waiting.Add(-1)
		s.busy++
		close(w)
	}
}

// slotKey carries the *slot of a wasm call, so interrupt polls find it.
type slotKey struct{}

// slot is one wasm call's hold on a run slot.
type slot struct {
	s     *slots
	ctx   context.Context // the call's own context: its deadline and cancellation
	vm    *VM
	since time.Time
	held  atomic.Bool
}

// enterGuest takes a run slot for a wasm call of vm under ctx. It returns
// nil, holding nothing, when ctx ends first (the caller reports the VM's
// stop error), else a slot to pass to withSlot and to release.
func enterGuest(ctx context.Context, vm *VM) *slot {
	asked := time.Now()
	ok := runSlots.acquire(ctx.Done(), false)
	now := time.Now()
	vm.slotWaited.Add(int64(now.Sub(asked)))
	if !ok {
		vm.stopWaiting.Store(true)
		vm.markStop(ctx)
		return nil
	}
	sl := &slot{s: &runSlots, ctx: ctx, vm: vm, since: now}
	sl.held.Store(true)
	return sl
}

// withSlot is call's context carrying sl.
func withSlot(call context.Context, sl *slot) context.Context {
	return context.WithValue(call, slotKey{}, sl)
}

// release gives the slot back; calling it again does nothing.
func (sl *slot) release() {
	if sl != nil && sl.held.CompareAndSwap(true, false) {
		sl.vm.slotHeld.Add(int64(time.Since(sl.since)))
		sl.s.release()
	}
}

// yieldSlot is the interrupt polls' hook: when the call has held its slot
// for Quantum and another VM waits, it hands the slot over and waits for
// the next one. A call whose context ends meanwhile has its VM's stop flag
// set and goes on without a slot to its stop.
func yieldSlot(ctx context.Context) {
	sl, _ := ctx.Value(slotKey{}).(*slot)
	if sl == nil || sl.s.waiting.Load() == 0 || !sl.held.Load() || time.Since(sl.since) < Quantum {
		return
	}
	sl.release()
	asked := time.Now()
	ok := sl.s.acquire(sl.ctx.Done(), false)
	now := time.Now()
	sl.vm.slotWaited.Add(int64(now.Sub(asked)))
	if !ok {
		sl.vm.stopWaiting.Store(true)
		sl.vm.markStop(sl.ctx)
		return
	}
	sl.since = now
	sl.held.Store(true)
}

// Running is how many VMs of the process execute guest code (hold a run
// slot) at this moment.
func Running() int {
	runSlots.mu.Lock()
	defer runSlots.mu.Unlock()
	return runSlots.busy
}

// Waiting is how many VMs of the process wait for a run slot.
func Waiting() int { return int(runSlots.waiting.Load()) }

// holdSlot takes a run slot for CPU work outside guest code that every cell
// does (restoring a snapshot into a fresh instance) and returns its release.
// It goes ahead of the VMs waiting to run guest code (a cell is not slowed
// to the pace of hundreds of spinning ones before it starts) and waits
// whatever the context: a restore is short, and the cell's deadline is
// checked when its guest code starts.
func holdSlot() func() {
	runSlots.acquire(nil, true)
	return runSlots.release
}
