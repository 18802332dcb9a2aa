package codemode

import "github.com/codemode-conformance/codemode/spec/result"

// maxSnapshotEvents bounds the events a run keeps until its next result
// reports them: a run nobody calls any more cannot grow them without limit
// (the oldest are dropped).
const maxSnapshotEvents = 256

// snapshotEvents holds a run's snapshot lifecycle events until the run's
// next exec/wait result reports them in telemetry.snapshotEvents (CM-TEL-03).
// The zero value is ready to use; it is guarded by the run's mu.
type snapshotEvents struct{ list []result.SnapshotEvent }

// noteSnapshot records that the snapshot (or continuation, continuation.go)
// p of cell runID was created, restored, expired or deleted.
func (r *agentRun) noteSnapshot(event, runID string, p Parked) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.snapEvents.list = append(r.snapEvents.list, snapshotEvent(event, runID, p))
	if n := len(r.snapEvents.list); n > maxSnapshotEvents {
		r.snapEvents.list = append([]result.SnapshotEvent(nil), r.snapEvents.list[n-maxSnapshotEvents:]...)
	}
}

// takeSnapshotEvents returns the events recorded since the last call and
// forgets them.
func (r *agentRun) takeSnapshotEvents() []result.SnapshotEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.snapEvents.list
	r.snapEvents.list = nil
	return out
}

// noteDropped records the deletion of c's snapshot, if it holds one, before
// c is terminated: expired when its TTL passed, deleted otherwise.
func noteDropped(c *cell, expired bool) {
	p := c.parked()
	if p == nil {
		return
	}
	ev := result.SnapshotDeleted
	if expired {
		ev = result.SnapshotExpired
	}
	c.run.noteSnapshot(ev, c.id, p)
}
