package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/codemode-conformance/codemode/reference/bridge"
	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// dispatch validates guest requests on the host (the guest is hostile: the
// prelude's own checks are not trusted) and starts nested calls.
func (s *step) dispatch(reqs []prelude.Request) (immediate []prelude.Delivery, yield bool, r result.Result, bad bool) {
	cfg := s.c.run.cfg
	if r, over := s.frontOverLimit(reqs); over {
		return nil, false, r, true
	}
	for _, q := range reqs {
		if !s.c.calls.Take(q.ID) {
			return nil, false, result.Failed(result.CodeInternalError,
				fmt.Sprintf("guest bridge protocol violated: request id %d is not fresh", q.ID)), true
		}
		switch q.Op {
		case "namespace": // CM-NS-03/05: resolved and checked, then exactly a tools.call
			nq, d, ok := s.resolveNamespaceCall(q)
			if !ok {
				immediate = append(immediate, d)
				continue
			}
			q = nq
			s.c.mu.Lock()
			s.c.bridged[q.ID] = true
			s.c.mu.Unlock()
			fallthrough
		case "call":
			t, ok := s.lookup(q.Tool) // update.go; deniedNow: queuedefects.go
			if !ok || t.Spec.Source == protocol.SourceMCP || s.deniedNow(t.ID) {
				immediate = append(immediate, bridge.UnknownTool(q.ID, q.Tool))
				continue
			}
			if d, over := bridge.CheckInput(q.ID, q.Input, cfg); over { // CM-LIM-07, CM-LIM-10
				immediate = append(immediate, d)
				continue
			}
			if s.c.calls.Queueing() { // bridge/queue.go: CM-NEST-05, CM-NEST-06
				s.c.calls.Enqueue(bridge.Queued{Req: q, ToolID: t.ID, Spec: t.Spec, Parent: s.parent})
				continue
			}
			if int64(s.inflightCount()) >= cfg.MaxPendingToolCalls {
				if s.rt.opts.Defects.StartBeforeBatchLimit { // let the started calls reach the host first
					s.collect(s.c.callCtx, time.Second, nil)
				}
				return nil, false, s.limit(result.CodeTooManyPendingToolCalls,
					fmt.Sprintf("more than maxPendingToolCalls (%d) nested tool calls in flight; await smaller batches", cfg.MaxPendingToolCalls)), true
			}
			s.startCall(q, t.ID, t.Spec)
		case bridge.OpMCPTool, bridge.OpMCPResource, bridge.OpMCPPrompt: // mcp.go
			s.c.mu.Lock()
			s.c.bridged[q.ID] = true
			s.c.mu.Unlock()
			d, r, fatal := s.startMCP(q)
			if fatal {
				return nil, false, r, true
			}
			if d != nil {
				immediate = append(immediate, *d)
			}
		case prelude.OpTimer, prelude.OpClearTimer: // bridge/timers.go: CM-NEST-13
			if d, ok := s.c.calls.Timer(q, s.parent); ok {
				immediate = append(immediate, d...)
			}
		case "yield":
			s.c.mu.Lock()
			s.c.yieldID = q.ID
			s.c.mu.Unlock()
			yield = true
		case prelude.OpResultsSave, prelude.OpResultsLoad, prelude.OpResultsDelete, prelude.OpStoreSet, prelude.OpStoreLoad:
			immediate = append(immediate, s.storeOp(q)) // storeops.go
		default:
			immediate = append(immediate, bridge.ErrorDelivery(q.ID, "Error", fmt.Sprintf("unknown bridge operation %q", q.Op), "invalid_input", nil))
		}
	}
	immediate = append(immediate, s.refill()...)
	return immediate, yield, r, false
}

func (s *step) inflightCount() int { return s.c.calls.InFlight() }

func (s *step) queuedCount() int { return s.c.calls.QueueLen() }

// collect waits up to wait for the cell's nested calls (bridge.Calls.Collect).
func (s *step) collect(ctx context.Context, wait time.Duration, wake <-chan struct{}) ([]prelude.Delivery, bool) {
	return s.c.calls.Collect(ctx, wait, wake)
}

// directPending reports whether a tools.call of the cell is in flight: a
// call to a harness tool that is neither a bridge call (namespace, MCP,
// CM-EXEC-15) nor a timer. Options.SuspendEagerly suspends at once then.
func (s *step) directPending() bool {
	ids := s.c.calls.InFlightToolCalls()
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	for _, id := range ids {
		if !s.c.bridged[id] {
			return true
		}
	}
	return false
}

// start runs one nested call in its own goroutine (CM-NEST-01, CM-NEST-04).
func (s *step) startCall(q prelude.Request, toolID string, spec protocol.ToolSpec) {
	callID := s.c.callID(q.ID)
	input := bridge.WellFormedInput(q.Input)
	p := protocol.InvokeParams{Run: s.c.run.id, ToolCallID: callID, ParentToolCallID: s.parent,
		CatalogID: toolID, Tool: spec.Name, Source: spec.Source, Owner: spec.Owner, Input: input, Context: s.c.run.ctx}
	network := s.networkControlled(spec) // untrusted.go: CM-NEST-20
	s.launch(q.ID, toolID, true, func(ctx context.Context) (json.RawMessage, error) {
		s.c.traceNested(p)                        // trajectory.go
		v, err := s.invokeGated(ctx, &p, network) // hooks and approvals first (CM-NEST-02/03, hooks.go)
		s.c.traceSettled(ctx, p, err)
		return v, err
	})
}

// callID is the toolCallId of the cell's nested request reqID: under
// nested-activity derived from the cell's replay identity (activity.go,
// CM-NEST-18), else from its runId.
func (c *cell) callID(reqID int64) string {
	if c.replayID != "" {
		return fmt.Sprintf("%s/call-%03d", c.replayID, reqID)
	}
	return fmt.Sprintf("%s/call-%03d", c.id, reqID)
}

// launch sends request reqID to toolID (calledToolIds when called) through
// the cell's bridge (bridge.Calls.Launch). Catalog calls count for
// executionMode across cells (bridge.RunSched, CM-NEST-12); MCP resource
// reads are no catalog calls.
func (s *step) launch(reqID int64, toolID string, called bool, invoke bridge.Invoke) {
	_, catalogued := s.c.run.catalog().Lookup(toolID)
	s.c.calls.Launch(bridge.Launch{ReqID: reqID, ToolID: toolID, Called: called, Catalogued: catalogued, Sequential: s.sequentialTool(toolID)}, invoke)
}

// sequentialTool reports whether the catalog's tool toolID runs sequential
// under feature execution-mode (CM-NEST-06, CM-NEST-12).
func (s *step) sequentialTool(toolID string) bool {
	if !s.rt.opts.HasFeature("execution-mode") {
		return false
	}
	t, ok := s.c.run.catalog().Lookup(toolID)
	return ok && t.Spec.ExecutionMode == protocol.ExecutionSequential
}

// frontOverLimit checks one synchronous front of guest requests before any
// of them is sent (bridge.Calls.Front): the result that fails the cell, or
// over false.
func (s *step) frontOverLimit(reqs []prelude.Request) (result.Result, bool) {
	o, over := s.c.calls.Front(reqs, func(q prelude.Request) bool {
		t, ok := s.c.run.catalog().Lookup(q.Tool)
		return ok && t.Spec.Source != protocol.SourceMCP
	})
	if !over {
		return result.Result{}, false
	}
	if o.StartFront {
		s.startFront(reqs, o.N)
	}
	if o.Limit {
		return s.limit(o.Code, o.Message), true
	}
	return result.Failed(o.Code, o.Message), true
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
			s.c.calls.Take(q.ID)
			s.startCall(q, t.ID, t.Spec)
			n--
		}
	}
	s.collect(s.c.callCtx, time.Second, nil)
}

// refill sends the cell's queued calls that may go now (bridge.Calls.Refill)
// and returns the rejections of those whose tool is gone.
func (s *step) refill() []prelude.Delivery { return s.c.calls.Refill(queueSender{s}) }

// queueSender resolves and sends the cell's queued calls for the step that
// refills (bridge.Sender).
type queueSender struct{ s *step }

// Resolve resolves a queued call in the run's current catalog (update.go
// lookup) for sending: the call with its tool's current spec, or for an MCP
// request its current launch function; or the guest's rejection when its
// tool is no longer in the catalog. It takes no lock.
func (qs queueSender) Resolve(h bridge.Queued) (bridge.Queued, *prelude.Delivery) {
	s := qs.s
	if h.MCP {
		start, d := s.mcpCall(h.Req) // mcp.go
		h.Start = func() { start(s) }
		return h, d
	}
	t, ok := s.lookup(h.ToolID)
	if !ok || t.Spec.Source == protocol.SourceMCP {
		d := bridge.UnknownTool(h.Req.ID, h.Req.Tool)
		return h, &d
	}
	h.ToolID, h.Spec = t.ID, t.Spec
	return h, nil
}

// Send sends a queued call under the exec/wait call it was made under.
func (qs queueSender) Send(h bridge.Queued) {
	s := qs.s
	cur := s.parent
	s.parent = h.Parent
	if h.MCP {
		h.Start()
	} else {
		s.startCall(h.Req, h.ToolID, h.Spec)
	}
	s.parent = cur
}

func (s *step) deliver(ctx context.Context, ds []prelude.Delivery) error {
	s.noteToolFailures(ds)
	return s.c.br.Deliver(ctx, s.vm, ds)
}
