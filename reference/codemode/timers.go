package codemode

import (
	"context"
	"encoding/json"
	"time"

	"github.com/codemode-conformance/codemode/reference/prelude"
)

// maxTimerDelay bounds a guest timer's delay; the cell's own deadlines
// (timeoutMs, snapshotTtlSeconds) end it long before.
const maxTimerDelay = 24 * time.Hour

// cellTimer is one guest timer (timers.js): the bridge request that settles
// when it fires or is cleared, and, once it has a slot, how to stop it.
type cellTimer struct {
	reqID  int64
	made   time.Time          // when the guest's request reached the host
	cancel context.CancelFunc // nil while queued
}

// timerOp takes a timer bridge request under feature bridge-queue (001
// [嵌套工具执行], CM-NEST-13). A timer takes a bridge slot like a nested
// call, waits in the cell's queue beyond maxPendingToolCalls, and its delay
// starts when it gets a slot. clearTimer drops a queued timer before any
// host timer starts, or stops a running one. It returns the deliveries to
// make at once (ok false: none).
func (s *step) timerOp(q prelude.Request) ([]prelude.Delivery, bool) {
	if !s.rt.opts.HasFeature("bridge-queue") {
		return []prelude.Delivery{errDelivery(q.ID, "Error", "unknown bridge operation "+q.Op, "invalid_input", nil)}, true
	}
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sched.timers == nil {
		c.sched.timers = map[int64]*cellTimer{}
	}
	if q.Op == prelude.OpTimer {
		if q.Timer <= 0 || c.sched.timers[q.Timer] != nil {
			return []prelude.Delivery{errDelivery(q.ID, "Error", "guest bridge protocol violated: timer number is not fresh", "invalid_input", nil)}, true
		}
		t := &cellTimer{reqID: q.ID, made: time.Now()}
		c.sched.timers[q.Timer] = t
		c.sched.queue = append(c.sched.queue, queuedCall{q: q, parent: s.parent, timer: t})
		return nil, false
	}
	ack := prelude.Delivery{ID: q.ID, OK: true, Value: json.RawMessage("null")}
	t := c.sched.timers[q.Timer]
	if t == nil {
		return []prelude.Delivery{ack}, true // fired or cleared already
	}
	delete(c.sched.timers, q.Timer)
	if t.cancel != nil {
		t.cancel() // running: its goroutine answers "cleared"
		return []prelude.Delivery{ack}, true
	}
	for i, qc := range c.sched.queue {
		if qc.timer == t {
			c.sched.queue = append(c.sched.queue[:i:i], c.sched.queue[i+1:]...)
			break
		}
	}
	return []prelude.Delivery{ack, {ID: t.reqID, OK: true, Value: json.RawMessage(`"cleared"`)}}, true
}

// startTimer gives timer t (request reqID) its slot: its delay of ms
// milliseconds starts now. It answers "fired", or "cleared" when
// clearTimeout stopped it first.
func (s *step) startTimer(reqID, ms int64, t *cellTimer) {
	d := time.Duration(min(max(ms, 0), maxTimerDelay.Milliseconds())) * time.Millisecond
	if s.rt.opts.Defects.TimerFromCall {
		d -= time.Since(t.made)
	}
	ctx, cancel := context.WithCancel(s.c.callCtx)
	s.c.mu.Lock()
	t.cancel = cancel
	s.c.mu.Unlock()
	s.launch(reqID, "", false, func(callCtx context.Context) (json.RawMessage, error) {
		defer cancel()
		tm := time.NewTimer(d)
		defer tm.Stop()
		select {
		case <-callCtx.Done(): // the cell ended, or snapshotTtlSeconds passed
			return nil, callCtx.Err()
		case <-tm.C:
			s.c.mu.Lock()
			for n, x := range s.c.sched.timers {
				if x == t {
					delete(s.c.sched.timers, n)
				}
			}
			s.c.mu.Unlock()
			return json.RawMessage(`"fired"`), nil
		case <-ctx.Done():
			if s.c.callCtx.Err() != nil {
				return nil, s.c.callCtx.Err()
			}
			return json.RawMessage(`"cleared"`), nil
		}
	})
}
