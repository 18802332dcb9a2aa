package codemode

import (
	"sync"
	"time"
)

// sweepSlack is how long after a snapshot's expiry the timer sweeps: expiry
// is strict (now after expires), and the timer may fire a little early.
const sweepSlack = 10 * time.Millisecond

// sweepTimer deletes a runtime's expired snapshots when the earliest one
// expires, so an idle session frees them without any further request
// (CM-RUN-02, CM-RUN-03). It holds no goroutine while it waits.
type sweepTimer struct {
	mu      sync.Mutex
	t       *time.Timer
	at      time.Time // when t fires; zero when no sweep is pending
	stopped bool
}

// schedule makes f run after d unless an earlier run is already pending.
func (s *sweepTimer) schedule(d time.Duration, f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at := time.Now().Add(d)
	if s.stopped || (!s.at.IsZero() && !s.at.After(at)) {
		return
	}
	if s.t != nil {
		s.t.Stop()
	}
	s.at = at
	s.t = time.AfterFunc(d, func() {
		s.mu.Lock()
		s.at = time.Time{}
		s.mu.Unlock()
		f()
	})
}

func (s *sweepTimer) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	if s.t != nil {
		s.t.Stop()
	}
}

// armSweep schedules the sweep of the earliest expiry among the waiting
// cells; with none waiting it does nothing.
func (rt *Runtime) armSweep() {
	var next time.Time
	rt.mu.Lock()
	for _, c := range rt.cells {
		c.mu.Lock()
		if c.state == "waiting" && !c.expires.IsZero() && (next.IsZero() || c.expires.Before(next)) {
			next = c.expires
		}
		c.mu.Unlock()
	}
	rt.mu.Unlock()
	if next.IsZero() {
		return
	}
	d := max(next.Sub(rt.opts.Now()), 0) + sweepSlack
	rt.sweeper.schedule(d, func() {
		rt.sweep()
		rt.armSweep()
	})
}
