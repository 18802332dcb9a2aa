package bridge

import (
	"context"
	"encoding/json"
	"time"

	"github.com/codemode-conformance/codemode/reference/prelude"
)

// maxTimerDelay bounds a guest timer's delay; the cell's own deadlines
// (timeoutMs, snapshotTtlSeconds) end it long before.
const maxTimerDelay = 24 * time.Hour

// timer is one guest timer (timers.js): the bridge request that settles
// when it fires or is cleared, and, once it has a slot, how to stop it.
type timer struct {
	reqID  int64
	made   time.Time          // when the guest's request reached the host
	cancel context.CancelFunc // nil while queued
}

// Timer takes a timer bridge request (prelude.OpTimer, OpClearTimer) made
// under the exec/wait call parent, under feature bridge-queue (001
// [嵌套工具执行], CM-NEST-13). A timer takes a bridge slot like a nested
// call, waits in the cell's queue beyond maxPendingToolCalls, and its delay
// starts when it gets a slot. clearTimer drops a queued timer before any
// host timer starts, or stops a running one. It returns the deliveries to
// make at once (ok false: none); without bridge-queue, the rejection of an
// unknown bridge operation.
func (c *Calls) Timer(q prelude.Request, parent string) ([]prelude.Delivery, bool) {
	if !c.cfg.Queue {
		return []prelude.Delivery{ErrorDelivery(q.ID, "Error", "unknown bridge operation "+q.Op, "invalid_input", nil)}, true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sched.timers == nil {
		c.sched.timers = map[int64]*timer{}
	}
	if q.Op == prelude.OpTimer {
		if q.Timer <= 0 || c.sched.timers[q.Timer] != nil {
			return []prelude.Delivery{ErrorDelivery(q.ID, "Error", "guest bridge protocol violated: timer number is not fresh", "invalid_input", nil)}, true
		}
		t := &timer{reqID: q.ID, made: time.Now()}
		c.sched.timers[q.Timer] = t
		c.sched.queue = append(c.sched.queue, Queued{Req: q, Parent: parent, timer: t})
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
func (c *Calls) startTimer(reqID, ms int64, t *timer) {
	d := time.Duration(min(max(ms, 0), maxTimerDelay.Milliseconds())) * time.Millisecond
	if c.cfg.Defects.TimerFromCall {
		d -= time.Since(t.made)
	}
	ctx, cancel := context.WithCancel(c.ctx)
	c.mu.Lock()
	t.cancel = cancel
	c.mu.Unlock()
	c.Launch(Launch{ReqID: reqID}, func(callCtx context.Context) (json.RawMessage, error) {
		defer cancel()
		tm := time.NewTimer(d)
		defer tm.Stop()
		select {
		case <-callCtx.Done(): // the cell ended, or snapshotTtlSeconds passed
			return nil, callCtx.Err()
		case <-tm.C:
			c.mu.Lock()
			for n, x := range c.sched.timers {
				if x == t {
					delete(c.sched.timers, n)
				}
			}
			c.mu.Unlock()
			return json.RawMessage(`"fired"`), nil
		case <-ctx.Done():
			if c.ctx.Err() != nil {
				return nil, c.ctx.Err()
			}
			return json.RawMessage(`"cleared"`), nil
		}
	})
}
