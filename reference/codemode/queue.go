package codemode

import (
	"fmt"
	"time"

	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// MaxQueuedRequests is how many ordinary bridge requests may wait beyond
// maxPendingToolCalls in flight under feature bridge-queue (001, CM-NEST-05).
const MaxQueuedRequests = 128

// queuedCall is a validated nested call the guest made that has not been
// sent yet: it waits for a slot (bridge-queue) or for a sequential call
// (execution-mode).
//
// A queued call is resolved again against the run's current catalog when it
// is sent (resolveQueued): a run.update while it waits applies to it as to a
// call made then (CM-NEST-16).
type queuedCall struct {
	q      prelude.Request
	toolID string     // the catalog id the call names
	mcp    bool       // an MCP bridge request (mcp.go)
	parent string     // the exec/wait call it was made under (tool.invoke parentToolCallId)
	timer  *cellTimer // a guest timer (timers.go), not a nested call
	// spec and start are the call as resolved when it was sent or queued:
	// the tool's spec, or for an MCP request the function that launches it.
	// A queued call is sent with them only under Defects.QueueStaleSpec.
	spec  protocol.ToolSpec
	start func(*step)
}

// scheduler is a cell's queue of calls not yet sent, guarded by cell.mu. It
// outlives suspension with the cell, so queued requests are sent after wait
// with their original request ids and inputs (CM-NEST-14).
type scheduler struct {
	queue []queuedCall
	bytes int64          // JSON bytes of the queued inputs
	seq   map[int64]bool // request ids of sequential calls sent
	// timers are the cell's guest timers not yet fired or cleared, by the
	// guest's timer number (timers.go, CM-NEST-13).
	timers map[int64]*cellTimer
}

// queueing reports whether nested calls go through the cell's queue: under
// bridge-queue (calls beyond maxPendingToolCalls wait, CM-NEST-05) or
// execution-mode (sequential calls wait, CM-NEST-06). Otherwise a call
// beyond maxPendingToolCalls fails the cell (CM-LIM-05).
func (s *step) queueing() bool {
	return s.rt.opts.HasFeature("bridge-queue") || s.rt.opts.HasFeature("execution-mode")
}

// frontOverLimit checks one synchronous front of guest requests before any
// of them is sent: a front that would overflow fails the cell and sends
// nothing (CM-NEST-05, CM-LIM-05, CM-NEST-23).
func (s *step) frontOverLimit(reqs []prelude.Request) (result.Result, bool) {
	if !s.queueing() {
		if s.rt.opts.Defects.StartBeforeBatchLimit {
			return result.Result{}, false
		}
		return s.batchOverLimit(reqs)
	}
	calls, bytes := 0, int64(0)
	for _, q := range reqs {
		if q.Op == prelude.OpTimer { // a timer takes a slot too (CM-NEST-13)
			calls++
		}
		switch q.Op {
		case "call":
			if t, ok := s.c.run.catalog().Lookup(q.Tool); ok && t.Spec.Source != protocol.SourceMCP {
				calls++
				bytes += int64(len(q.Input))
			}
		case opMCPTool, opMCPResource, opMCPPrompt: // MCP requests take slots too (mcp.go)
			calls++
			bytes += int64(len(q.Input))
		}
	}
	if calls == 0 {
		return result.Result{}, false
	}
	maxPending := s.c.run.cfg.MaxPendingToolCalls
	s.c.mu.Lock()
	waiting := len(s.c.inflight) + len(s.c.sched.queue) + calls
	bytes += s.c.sched.bytes
	s.c.mu.Unlock()
	// The host holds queued inputs the guest no longer does: they count
	// against memoryLimitBytes, so queueing raises no limit (CM-NEST-16).
	if bytes > s.c.run.cfg.MemoryLimitBytes && !s.rt.opts.Defects.QueueUncounted {
		return s.limit(result.CodeMemoryLimitExceeded,
			fmt.Sprintf("the inputs of the queued nested tool calls (%d bytes of JSON) exceed memoryLimitBytes (%d bytes); await smaller batches", bytes, s.c.run.cfg.MemoryLimitBytes)), true
	}
	if !s.rt.opts.HasFeature("bridge-queue") {
		if int64(waiting) > maxPending {
			return s.limit(result.CodeTooManyPendingToolCalls,
				fmt.Sprintf("more than maxPendingToolCalls (%d) nested tool calls pending; await smaller batches", maxPending)), true
		}
		return result.Result{}, false
	}
	if int64(waiting) > maxPending+MaxQueuedRequests {
		if s.rt.opts.Defects.StartBeforeBatchLimit {
			s.startFront(reqs, int(maxPending)-len(s.c.inflight))
		}
		return result.Failed(result.CodeInvalidInput,
			fmt.Sprintf("too many nested tool calls at once: %d would be pending, but at most maxPendingToolCalls (%d) run and %d more may queue; await smaller batches (for example Promise.all over chunks of %d) instead of creating every call before awaiting",
				waiting, maxPending, MaxQueuedRequests, maxPending)), true
	}
	return result.Result{}, false
}

// startFront starts up to n ordinary calls of reqs and lets them reach the
// host: the defect StartBeforeBatchLimit under bridge-queue, which admits a
// partial batch of an overflowing front (CM-NEST-23).
func (s *step) startFront(reqs []prelude.Request, n int) {
	for _, q := range reqs {
		if n <= 0 {
			break
		}
		if t, ok := s.c.run.catalog().Lookup(q.Tool); q.Op == "call" && ok && t.Spec.Source != protocol.SourceMCP {
			s.c.seen[q.ID] = true
			s.startCall(q, t.ID, t.Spec)
			n--
		}
	}
	s.collect(s.c.callCtx, time.Second, nil)
}

// queuedCount is how many calls of the cell wait in its queue.
func (s *step) queuedCount() int {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	return len(s.c.sched.queue)
}

// resolveQueued resolves a queued call in the run's current catalog (update.go
// lookup) for sending: the call with its tool's current spec, or for an MCP
// request its current launch function; or the guest's rejection when its
// tool is no longer in the catalog. Timers pass as they are. It takes no
// lock, so refill may call it under c.mu.
func (s *step) resolveQueued(h queuedCall) (queuedCall, *prelude.Delivery) {
	switch {
	case h.timer != nil || s.rt.opts.Defects.QueueStaleSpec:
		return h, nil
	case h.mcp:
		start, d := s.mcpCall(h.q) // mcp.go
		h.start = start
		return h, d
	}
	t, ok := s.lookup(h.toolID)
	if !ok || t.Spec.Source == protocol.SourceMCP {
		d := unknownToolDelivery(h.q.ID, h.q.Tool)
		return h, &d
	}
	h.toolID, h.spec = t.ID, t.Spec
	return h, nil
}

// enqueue queues a validated call; refill sends it when it may go.
func (s *step) enqueue(q prelude.Request, toolID string, spec protocol.ToolSpec) {
	s.c.mu.Lock()
	s.c.sched.queue = append(s.c.sched.queue, queuedCall{q: q, toolID: toolID, spec: spec, parent: s.parent})
	s.c.sched.bytes += int64(len(q.Input))
	s.c.mu.Unlock()
}

// refill sends queued calls in request order while they may go: a parallel
// call while fewer than maxPendingToolCalls are in flight and no sequential
// call is, a sequential call only when nothing is in flight; a waiting
// sequential call holds back every later one (CM-NEST-05, CM-NEST-06). "In
// flight" spans every cell of the run (runsched.go, CM-NEST-12). The
// drive loop calls it after the guest has run the continuations of the
// results just delivered (CM-NEST-15).
//
// Each call is resolved in the run's current catalog as it comes to the head
// of the queue: its spec then (executionMode, resultContentSource) applies,
// and a call whose tool a run.update removed is never sent but rejected as
// an unknown tool (CM-NEST-16, CM-RES-07). The rejections are returned for
// delivery to the guest.
func (s *step) refill() (rejected []prelude.Delivery) {
	c := s.c
	maxPending := int(c.run.cfg.MaxPendingToolCalls)
	for {
		c.mu.Lock()
		if c.state == "ended" || len(c.sched.queue) == 0 {
			c.mu.Unlock()
			return rejected
		}
		seqBusy := false
		for id := range c.sched.seq {
			if _, ok := c.inflight[id]; ok {
				seqBusy = true
			} else {
				delete(c.sched.seq, id)
			}
		}
		head, reject := s.resolveQueued(c.sched.queue[0]) // takes no lock
		if reject != nil {
			c.sched.queue = c.sched.queue[1:]
			c.sched.bytes -= int64(len(head.q.Input))
			c.mu.Unlock()
			rejected = append(rejected, *reject)
			continue
		}
		sequential := head.spec.ExecutionMode == protocol.ExecutionSequential && s.rt.opts.HasFeature("execution-mode")
		n := len(c.inflight)
		// Ordering spans the run's cells (CM-NEST-12): the other cells'
		// calls in flight hold this one back too.
		otherCells := head.timer == nil && s.rt.opts.HasFeature("execution-mode") && !s.rt.opts.Defects.CellLocalOrder && !c.run.sched.mayStart(sequential)
		if seqBusy || otherCells || n >= maxPending || (sequential && n > 0) {
			c.mu.Unlock()
			return
		}
		c.sched.queue = c.sched.queue[1:]
		c.sched.bytes -= int64(len(head.q.Input))
		if sequential {
			if c.sched.seq == nil {
				c.sched.seq = map[int64]bool{}
			}
			c.sched.seq[head.q.ID] = true
		}
		c.mu.Unlock()
		// startCall names s.parent as the parent: a call queued under an
		// earlier exec/wait keeps the parent it was made under.
		if head.timer != nil {
			s.startTimer(head.q.ID, head.q.Ms, head.timer) // timers.go
			continue
		}
		cur := s.parent
		s.parent = head.parent
		if head.mcp {
			head.start(s)
		} else {
			s.startCall(head.q, head.toolID, head.spec)
		}
		s.parent = cur
	}
}
