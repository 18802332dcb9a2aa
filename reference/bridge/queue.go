package bridge

import (
	"fmt"

	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// MaxQueuedRequests is how many ordinary bridge requests may wait beyond
// maxPendingToolCalls in flight under feature bridge-queue (001, CM-NEST-05).
const MaxQueuedRequests = 128

// Bridge operations of the MCP namespace (prelude mcp.js, spec/protocol.md
// §12.10): they take bridge slots like tools.call (CM-MCP-01).
const (
	OpMCPTool     = "mcp"         // tool: the catalog id
	OpMCPResource = "mcpResource" // tool: mcp:<server>:resources/read
	OpMCPPrompt   = "mcpPrompt"   // tool: mcp:<server>:prompts/get
)

// Queued is a validated nested call the guest made that has not been sent
// yet: it waits for a slot (bridge-queue) or for a sequential call
// (execution-mode).
//
// A queued call is resolved again against the run's current catalog when it
// is sent (Sender.Resolve): a run.update while it waits applies to it as to a
// call made then (CM-NEST-16).
type Queued struct {
	Req    prelude.Request
	ToolID string // the catalog id the call names
	MCP    bool   // an MCP bridge request
	Parent string // the exec/wait call it was made under (tool.invoke parentToolCallId)
	// Spec and Start are the call as resolved when it was sent or queued:
	// the tool's spec, or for an MCP request the function that launches
	// it. A queued call is sent with them only under Defects.QueueStaleSpec.
	Spec  protocol.ToolSpec
	Start func()
	timer *timer // a guest timer (timers.go), not a nested call
}

// Timer reports whether q is a guest timer, not a call.
func (q Queued) Timer() bool { return q.timer != nil }

// Sender is how Refill resolves and sends the queued calls of a cell: the
// cell's exec or wait that refills.
type Sender interface {
	// Resolve resolves q (a harness or MCP call) in the run's current
	// catalog for sending: q with its tool's current Spec, or for an MCP
	// request its current Start; or the guest's rejection when its tool is
	// no longer in the catalog. It must take no lock of the cell's.
	Resolve(q Queued) (Queued, *prelude.Delivery)
	// Send sends q as made under q.Parent, by Launch.
	Send(q Queued)
}

// scheduler is a cell's queue of calls not yet sent, guarded by Calls.mu.
type scheduler struct {
	queue []Queued
	bytes int64          // JSON bytes of the queued inputs
	seq   map[int64]bool // request ids of sequential calls sent
	// timers are the cell's guest timers not yet fired or cleared, by the
	// guest's timer number (timers.go, CM-NEST-13).
	timers map[int64]*timer
}

// Queueing reports whether nested calls go through the cell's queue: under
// bridge-queue (calls beyond maxPendingToolCalls wait, CM-NEST-05) or
// execution-mode (sequential calls wait, CM-NEST-06). Otherwise a call
// beyond maxPendingToolCalls fails the cell (CM-LIM-05).
func (c *Calls) Queueing() bool {
	return c.cfg.Queue || c.cfg.ExecutionMode
}

// Overflow is why a front of guest requests fails the cell before any of
// it is sent.
type Overflow struct {
	Code    result.ErrorCode
	Message string
	// Limit is a limit failure: it counts in telemetry limitFailures.
	Limit bool
	// StartFront, under Defects.StartBeforeBatchLimit, asks the caller to
	// start up to N ordinary calls of the front and let them reach the
	// host before it fails the cell.
	StartFront bool
	N          int
}

// Front checks one synchronous front of guest requests before any of them
// is sent: a front that would overflow fails the cell and sends nothing
// (CM-NEST-05, CM-LIM-05, CM-NEST-23). isCall reports whether a request of
// op "call" names an ordinary (not MCP) tool of the run's catalog; only
// those, MCP requests and timers take slots.
func (c *Calls) Front(reqs []prelude.Request, isCall func(prelude.Request) bool) (Overflow, bool) {
	if !c.Queueing() {
		if c.cfg.Defects.StartBeforeBatchLimit {
			return Overflow{}, false
		}
		return c.batchOverLimit(reqs, isCall)
	}
	calls, bytes := 0, int64(0)
	for _, q := range reqs {
		if q.Op == prelude.OpTimer { // a timer takes a slot too (CM-NEST-13)
			calls++
		}
		switch q.Op {
		case "call":
			if isCall(q) {
				calls++
				bytes += int64(len(q.Input))
			}
		case OpMCPTool, OpMCPResource, OpMCPPrompt: // MCP requests take slots too
			calls++
			bytes += int64(len(q.Input))
		}
	}
	if calls == 0 {
		return Overflow{}, false
	}
	cfg := c.cfg.Run
	maxPending := cfg.MaxPendingToolCalls
	c.mu.Lock()
	waiting := len(c.inflight) + len(c.sched.queue) + calls
	bytes += c.sched.bytes
	c.mu.Unlock()
	// The host holds queued inputs the guest no longer does: they count
	// against memoryLimitBytes, so queueing raises no limit (CM-NEST-16).
	if bytes > cfg.MemoryLimitBytes && !c.cfg.Defects.QueueUncounted {
		return Overflow{Code: result.CodeMemoryLimitExceeded, Limit: true,
			Message: fmt.Sprintf("the inputs of the queued nested tool calls (%d bytes of JSON) exceed memoryLimitBytes (%d bytes); await smaller batches", bytes, cfg.MemoryLimitBytes)}, true
	}
	if !c.cfg.Queue {
		if int64(waiting) > maxPending {
			return Overflow{Code: result.CodeTooManyPendingToolCalls, Limit: true,
				Message: fmt.Sprintf("more than maxPendingToolCalls (%d) nested tool calls pending; await smaller batches", maxPending)}, true
		}
		return Overflow{}, false
	}
	if int64(waiting) > maxPending+MaxQueuedRequests {
		o := Overflow{Code: result.CodeInvalidInput,
			Message: fmt.Sprintf("too many nested tool calls at once: %d would be pending, but at most maxPendingToolCalls (%d) run and %d more may queue; await smaller batches (for example Promise.all over chunks of %d) instead of creating every call before awaiting",
				waiting, maxPending, MaxQueuedRequests, maxPending)}
		if c.cfg.Defects.StartBeforeBatchLimit {
			o.StartFront, o.N = true, int(maxPending)-c.InFlight()
		}
		return o, true
	}
	return Overflow{}, false
}

// batchOverLimit fails the cell before any call of reqs is started when
// they would take the nested calls in flight past maxPendingToolCalls: a
// call started and then abandoned could reach the harness after the
// failed answer (CM-LIM-05, CM-NEST-23).
func (c *Calls) batchOverLimit(reqs []prelude.Request, isCall func(prelude.Request) bool) (Overflow, bool) {
	calls := 0
	for _, q := range reqs {
		if q.Op == "call" {
			if isCall(q) {
				calls++
			}
		}
	}
	max := c.cfg.Run.MaxPendingToolCalls
	if calls == 0 || int64(c.InFlight()+calls) <= max {
		return Overflow{}, false
	}
	return Overflow{Code: result.CodeTooManyPendingToolCalls, Limit: true,
		Message: fmt.Sprintf("more than maxPendingToolCalls (%d) nested tool calls in flight; await smaller batches", max)}, true
}

// QueueLen is how many calls of the cell wait in its queue.
func (c *Calls) QueueLen() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sched.queue)
}

// QueuedCalls is a copy of the cell's queue, in request order.
func (c *Calls) QueuedCalls() []Queued {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Queued(nil), c.sched.queue...)
}

// SlotsTaken reports whether a call made now must queue: every one of the
// maxPendingToolCalls slots is in flight or promised to a queued call.
func (c *Calls) SlotsTaken() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return int64(len(c.inflight)+len(c.sched.queue)) >= c.cfg.Run.MaxPendingToolCalls
}

// Enqueue queues a validated call; Refill sends it when it may go.
func (c *Calls) Enqueue(q Queued) {
	c.mu.Lock()
	c.sched.queue = append(c.sched.queue, q)
	c.sched.bytes += int64(len(q.Req.Input))
	c.mu.Unlock()
}

// resolve resolves queued call h through s for sending; timers, and every
// call under Defects.QueueStaleSpec, pass as they are.
func (c *Calls) resolve(s Sender, h Queued) (Queued, *prelude.Delivery) {
	if h.timer != nil || c.cfg.Defects.QueueStaleSpec {
		return h, nil
	}
	return s.Resolve(h)
}

// Refill sends queued calls in request order while they may go: a parallel
// call while fewer than maxPendingToolCalls are in flight and no sequential
// call is, a sequential call only when nothing is in flight; a waiting
// sequential call holds back every later one (CM-NEST-05, CM-NEST-06). "In
// flight" spans every cell of the run (RunSched, CM-NEST-12). The drive
// loop calls it after the guest has run the continuations of the results
// just delivered (CM-NEST-15).
//
// Each call is resolved in the run's current catalog (s.Resolve) as it comes
// to the head of the queue: its spec then (executionMode,
// resultContentSource) applies, and a call whose tool a run.update removed
// is never sent but rejected as an unknown tool (CM-NEST-16, CM-RES-07). The
// rejections are returned for delivery to the guest.
func (c *Calls) Refill(s Sender) (rejected []prelude.Delivery) {
	maxPending := int(c.cfg.Run.MaxPendingToolCalls)
	for {
		c.mu.Lock()
		if c.ended || len(c.sched.queue) == 0 {
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
		head, reject := c.resolve(s, c.sched.queue[0]) // takes no lock
		if reject != nil {
			c.sched.queue = c.sched.queue[1:]
			c.sched.bytes -= int64(len(head.Req.Input))
			c.mu.Unlock()
			rejected = append(rejected, *reject)
			continue
		}
		sequential := head.Spec.ExecutionMode == protocol.ExecutionSequential && c.cfg.ExecutionMode
		n := len(c.inflight)
		// Ordering spans the run's cells (CM-NEST-12): the other cells'
		// calls in flight hold this one back too.
		otherCells := head.timer == nil && c.cfg.ExecutionMode && !c.cfg.Defects.CellLocalOrder && !c.run.mayStart(sequential)
		if seqBusy || otherCells || n >= maxPending || (sequential && n > 0) {
			c.mu.Unlock()
			return
		}
		c.sched.queue = c.sched.queue[1:]
		c.sched.bytes -= int64(len(head.Req.Input))
		if sequential {
			if c.sched.seq == nil {
				c.sched.seq = map[int64]bool{}
			}
			c.sched.seq[head.Req.ID] = true
		}
		c.mu.Unlock()
		if head.timer != nil {
			c.startTimer(head.Req.ID, head.Req.Ms, head.timer) // timers.go
			continue
		}
		// A call queued under an earlier exec/wait keeps the parent it
		// was made under (head.Parent).
		s.Send(head)
	}
}
