package codemode

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Default process-wide limits (codemode-reference serve --max-live-vms,
// --max-suspended-runs).
const (
	// DefaultMaxLiveVMs bounds the VMs instantiated at once in a process. A
	// trivial live VM holds about 1 MiB of host memory and a busy one up to
	// its run's memoryLimitBytes; 256 covers the 64 concurrent handlers of
	// four busy connections.
	DefaultMaxLiveVMs = 256
	// DefaultMaxSuspendedRuns is CM-RUN-05's cap: 64 suspended runs per process.
	DefaultMaxSuspendedRuns = 64
)

// ErrTooManySuspendedRuns is why a suspension beyond the process's
// suspended-run limit fails; its text is the one CM-RUN-05 names.
var ErrTooManySuspendedRuns = errors.New("too many suspended code mode runs.")

// ErrTooManyLiveVMs is why a cell got no VM: the process ran its limit of
// live VMs for the whole of the call's timeoutMs.
var ErrTooManyLiveVMs = errors.New("too many live code mode VMs in this process")

// Limits are the process-wide admission limits; zero means the default.
type Limits struct {
	// MaxLiveVMs bounds VMs instantiated at once, over every session
	// (running cells; a waiting cell holds none). A cell that finds no free
	// slot waits for one within its timeoutMs.
	MaxLiveVMs int
	// MaxSuspendedRuns bounds cells waiting in a snapshot at once, over
	// every session (CM-RUN-05). A suspension beyond it fails at once.
	MaxSuspendedRuns int
	// MaxMemoryBytes bounds the sum of the memoryLimitBytes of live VMs
	// (0: no budget; membudget.go). A cell whose VM does not fit waits
	// within its timeoutMs, then fails with runtime_unavailable.
	MaxMemoryBytes int64
}

// Admission is one process's admission control: the live VMs and suspended
// runs of every Runtime that shares it are counted together, and
// runtime.stats reports the figures of all of them (spec/protocol.md §8).
// Use one per process: ProcessAdmission, or NewAdmission once in main.
type Admission struct {
	limits Limits
	slots  chan struct{} // one token per live VM
	memory *memoryBudget // nil: no budget

	mu        sync.Mutex
	suspended int
	runtimes  map[*Runtime]struct{}
}

// NewAdmission returns an Admission with limits l (zero fields: defaults).
func NewAdmission(l Limits) *Admission {
	if l.MaxLiveVMs <= 0 {
		l.MaxLiveVMs = DefaultMaxLiveVMs
	}
	if l.MaxSuspendedRuns <= 0 {
		l.MaxSuspendedRuns = DefaultMaxSuspendedRuns
	}
	a := &Admission{limits: l, slots: make(chan struct{}, l.MaxLiveVMs), runtimes: map[*Runtime]struct{}{}}
	if l.MaxMemoryBytes > 0 {
		a.memory = &memoryBudget{limit: l.MaxMemoryBytes}
	}
	return a
}

var (
	processOnce      sync.Once
	processAdmission *Admission
)

// ProcessAdmission is the Admission with default limits that every Runtime
// created without Options.Admission shares, so the limits hold per process
// even for an embedder that never sets them.
func ProcessAdmission() *Admission {
	processOnce.Do(func() { processAdmission = NewAdmission(Limits{}) })
	return processAdmission
}

// Limits returns the limits in force (defaults filled in).
func (a *Admission) Limits() Limits { return a.limits }

// acquireVM takes a live-VM slot, waiting while the process is at its
// limit; it fails with ErrTooManyLiveVMs when ctx ends first.
func (a *Admission) acquireVM(ctx context.Context) error {
	select {
	case a.slots <- struct{}{}:
		return nil
	default:
	}
	select {
	case a.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w (the limit is %d, --max-live-vms): %w", ErrTooManyLiveVMs, a.limits.MaxLiveVMs, ctx.Err())
	}
}

func (a *Admission) releaseVM() { <-a.slots }

// reserveSuspended counts one more suspended run, or fails with
// ErrTooManySuspendedRuns at the limit (CM-RUN-05).
func (a *Admission) reserveSuspended() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.suspended >= a.limits.MaxSuspendedRuns {
		return ErrTooManySuspendedRuns
	}
	a.suspended++
	return nil
}

func (a *Admission) releaseSuspended() {
	a.mu.Lock()
	a.suspended--
	a.mu.Unlock()
}

func (a *Admission) register(rt *Runtime) {
	a.mu.Lock()
	a.runtimes[rt] = struct{}{}
	a.mu.Unlock()
}

func (a *Admission) unregister(rt *Runtime) {
	a.mu.Lock()
	delete(a.runtimes, rt)
	a.mu.Unlock()
}

// stats sums the figures of every runtime of the process, each swept of
// expired snapshots first; liveVMs counts each engine once.
func (a *Admission) stats() protocol.Stats {
	a.mu.Lock()
	rts := make([]*Runtime, 0, len(a.runtimes))
	for rt := range a.runtimes {
		rts = append(rts, rt)
	}
	a.mu.Unlock()
	var s protocol.Stats
	engines := map[*engine.Engine]bool{}
	for _, rt := range rts {
		rt.sweep()
		l := rt.localStats()
		s.Runs += l.Runs
		s.Snapshots += l.Snapshots
		s.SnapshotBytes += l.SnapshotBytes
		s.SuspendedRuns += l.SuspendedRuns
		if rt.eng != nil && !engines[rt.eng] {
			engines[rt.eng] = true
			s.LiveVMs += rt.eng.LiveVMs()
		}
	}
	return s
}

// admitVM takes a live-VM slot for this step, released by closeVM or when
// the VM is handed to the suspender.
func (s *step) admitVM(ctx context.Context) error {
	if err := s.rt.opts.Admission.acquireVM(ctx); err != nil {
		return err
	}
	n := s.c.run.cfg.MemoryLimitBytes
	if err := s.rt.opts.Admission.memory.reserve(ctx, n); err != nil { // membudget.go: --max-memory
		s.rt.opts.Admission.releaseVM()
		return err
	}
	s.slot, s.memory = true, n
	return nil
}

// releaseSlot gives back the step's live-VM slot, if it holds one.
func (s *step) releaseSlot() {
	if s.slot {
		s.slot = false
		s.rt.opts.Admission.releaseVM()
		s.rt.opts.Admission.memory.release(s.memory)
		s.memory = 0
	}
}
