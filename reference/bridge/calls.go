// Package bridge is the host half of the code mode bridge: how a nested call
// travels from the guest's request to the delivery of its outcome into the
// VM. The guest half is reference/prelude (Bridge, prelude.js); what a call
// does on the host (hooks, approvals, trajectory, the tool.invoke itself) is
// the Invoke that reference/codemode hands to Calls.Launch.
//
// The way of one call, in the order of the files:
//   - calls.go: a cell's Calls takes each request id once, launches a call
//     in its own goroutine (CM-NEST-01, CM-NEST-04) and collects what
//     settled for delivery;
//   - limit.go, depth.go: what crosses is bounded in bytes (a quarter of
//     memoryLimitBytes, CM-LIM-07) and in depth (MaxBridgeDepth, CM-LIM-04,
//     CM-LIM-10), in both directions;
//   - queue.go: under bridge-queue and execution-mode the calls beyond
//     maxPendingToolCalls, or behind a sequential call, wait in the cell's
//     queue and leave in request order (CM-NEST-05, CM-NEST-06, CM-NEST-15,
//     CM-NEST-16); otherwise a front over the limit fails the cell
//     (CM-LIM-05, CM-NEST-23);
//   - runsched.go: executionMode ordering spans the cells of a run
//     (CM-NEST-12);
//   - timers.go: a guest timer takes a slot like a call (CM-NEST-13);
//   - deadline.go: each call has a deadline of its own, snapshotTtlSeconds
//     (spec/protocol.md §4, "Nested call deadline").
package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/spec/config"
	"github.com/codemode-conformance/codemode/spec/result"
)

// Config is what a cell's bridge takes of its run and the served profile.
type Config struct {
	// Run is the run's resolved config: maxPendingToolCalls,
	// memoryLimitBytes and snapshotTtlSeconds bound the bridge.
	Run config.Config
	// Queue is feature bridge-queue (CM-NEST-05, CM-NEST-13); ExecutionMode
	// is feature execution-mode (CM-NEST-06, CM-NEST-12).
	Queue         bool
	ExecutionMode bool
	Defects       Defects
}

// Defects are the bridge's deliberate defects for the broken variants
// (fakes/broken, through codemode.Defects); the zero value conforms.
type Defects struct {
	// CellLocalOrder orders executionMode within each cell only, not
	// across the cells of a run (CM-NEST-12).
	CellLocalOrder bool
	// TimerFromCall measures a queued guest timer's delay from the
	// setTimeout call, not from when it got a slot (CM-NEST-13).
	TimerFromCall bool
	// QueueStaleSpec sends a queued call as it was resolved when it was
	// queued, not against the run's catalog when it is sent (CM-NEST-16).
	QueueStaleSpec bool
	// QueueUncounted leaves queued inputs out of memoryLimitBytes
	// (CM-NEST-16).
	QueueUncounted bool
	// StartBeforeBatchLimit starts the calls of a front over the queue one
	// by one until the limit, then fails the cell, instead of failing it
	// before any starts (CM-NEST-23; Overflow.StartFront).
	StartBeforeBatchLimit bool
}

// Invoke runs one call on the host until ctx ends. A *ToolError reaches the
// guest as the tool's own failure; any other error with its text.
type Invoke func(ctx context.Context) (json.RawMessage, error)

// Launch is one call that leaves the host, and how it counts.
type Launch struct {
	ReqID  int64  // the guest's bridge request id
	ToolID string // the catalog id ("" for a guest timer: no tool call)
	// Called counts the call in the cell's calledToolIds (Called).
	Called bool
	// Catalogued is a catalog call: it counts for executionMode across
	// the run's cells (RunSched); timers and MCP resource reads do not.
	Catalogued bool
	// Sequential is a call of a sequential tool under execution-mode.
	Sequential bool
}

// Calls is one cell's bridge: its calls in flight, those not sent yet and
// its guest timers. It outlives suspension with the cell, so queued requests
// are sent after wait with their original request ids and inputs
// (CM-NEST-14). Its methods are safe for concurrent use. While it holds its
// lock it calls out only to callID and to Sender.Resolve, which must take no
// lock of the cell's.
type Calls struct {
	cfg    Config
	ctx    context.Context // the cell's call context: it ends every call
	run    *RunSched
	callID func(reqID int64) string
	done   chan completion // buffered: goroutines never block

	mu       sync.Mutex
	ended    bool
	inflight map[int64]*call
	called   []string       // catalog ids of the tool calls made, in order
	seen     map[int64]bool // bridge request ids already taken
	sched    scheduler      // calls not sent yet (queue.go)
}

type call struct {
	reqID  int64
	callID string
	toolID string
}

type completion struct {
	reqID int64
	d     prelude.Delivery
}

// NewCalls returns the bridge of a cell of the run whose cross-cell
// schedule is run. ctx is the cell's call context: it outlives a single
// exec or wait, and its end drops every call. callID names request reqID's
// tool call (its toolCallId).
func NewCalls(ctx context.Context, cfg Config, run *RunSched, callID func(reqID int64) string) *Calls {
	return &Calls{cfg: cfg, ctx: ctx, run: run, callID: callID, done: make(chan completion, 256),
		inflight: map[int64]*call{}, seen: map[int64]bool{}}
}

// Take reports whether request id is fresh (positive, never taken before)
// and takes it.
func (c *Calls) Take(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id <= 0 || c.seen[id] {
		return false
	}
	c.seen[id] = true
	return true
}

// End drops the cell's calls in flight, its queue and its timers: the cell
// ended, and no call of it is launched or sent again. The caller cancels
// the call context.
func (c *Calls) End() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	c.inflight = map[int64]*call{}
	c.sched = scheduler{}
}

// InFlight is how many calls of the cell are in flight, timers included.
func (c *Calls) InFlight() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.inflight)
}

// InFlightToolCalls returns the request ids of the cell's tool calls in
// flight (calls with a catalog id: timers are none), in no order.
func (c *Calls) InFlightToolCalls() []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ids []int64
	for id, n := range c.inflight {
		if n.toolID != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

// Called lists the catalog ids of the tool calls the cell made, in order.
func (c *Calls) Called() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.called...)
}

// Pending lists the unsettled tool calls in request order (a waiting
// result's pendingToolCalls); timers are none.
func (c *Calls) Pending() []result.PendingToolCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]result.PendingToolCall, 0, len(c.inflight))
	for _, n := range c.inflight {
		if n.toolID == "" {
			continue // a guest timer (timers.go), no tool call
		}
		out = append(out, result.PendingToolCall{ID: n.callID, ToolID: n.toolID})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Launch registers call l as in flight and runs invoke in its own goroutine
// on the cell's call context, under the call's own deadline (deadline.go).
// The outcome becomes the request's delivery: the value (null when it is
// not JSON), a result over the bridge bounds rejected (CM-LIM-07, CM-LIM-10),
// or the error as a ToolError with code nested_tool_failed. Harness tools
// and MCP calls share it: one executor path (CM-MCP-01). A cell that ended
// launches nothing, and a call whose cell ended before it left is never
// invoked (CM-NEST-23).
func (c *Calls) Launch(l Launch, invoke Invoke) {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return
	}
	c.inflight[l.ReqID] = &call{reqID: l.ReqID, callID: c.callID(l.ReqID), toolID: l.ToolID}
	if l.Called {
		c.called = append(c.called, l.ToolID)
	}
	c.mu.Unlock()
	if l.Catalogued {
		c.run.begin(l.Sequential)
	}
	go func() {
		if l.Catalogued {
			defer c.run.end(l.Sequential)
		}
		if c.ctx.Err() != nil {
			return // the cell ended before the call left: never send it (CM-NEST-23)
		}
		reqID := l.ReqID
		v, err := c.bounded(c.callID(reqID), l.ToolID, invoke) // deadline.go
		var d prelude.Delivery
		if err != nil {
			var te *ToolError
			if errors.As(err, &te) {
				d = ErrorDelivery(reqID, "ToolError", te.Message, string(result.CodeNestedToolFailed), te.Data)
			} else {
				d = ErrorDelivery(reqID, "ToolError", err.Error(), string(result.CodeNestedToolFailed), nil)
			}
		} else if rej, over := oversizedResult(reqID, v, c.cfg.Run); over { // CM-LIM-07, limit.go
			d = rej
		} else {
			if !json.Valid(v) {
				v = json.RawMessage("null")
			}
			d = prelude.Delivery{ID: reqID, OK: true, Value: v}
		}
		select {
		case c.done <- completion{reqID: reqID, d: d}:
		case <-c.ctx.Done():
		}
	}()
}

// Collect waits up to wait for at least one completion and returns every
// completion available then, to deliver into the VM. ok is false when none
// arrived and wake (nil: never) was not closed, or ctx ended; a closed wake
// gives ok with no deliveries.
func (c *Calls) Collect(ctx context.Context, wait time.Duration, wake <-chan struct{}) ([]prelude.Delivery, bool) {
	var ds []prelude.Delivery
	take := func(cp completion) {
		c.mu.Lock()
		if _, ok := c.inflight[cp.reqID]; ok {
			delete(c.inflight, cp.reqID)
			ds = append(ds, cp.d)
		}
		c.mu.Unlock()
	}
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case cp := <-c.done:
			take(cp)
		case <-wake:
			return nil, true
		case <-t.C:
		case <-ctx.Done():
			return nil, false
		}
	}
	for {
		select {
		case cp := <-c.done:
			take(cp)
		default:
			return ds, len(ds) > 0
		}
	}
}
