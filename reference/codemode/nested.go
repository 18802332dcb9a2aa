package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// dispatch validates guest requests on the host (the guest is hostile: the
// prelude's own checks are not trusted) and starts nested calls.
func (s *step) dispatch(reqs []prelude.Request) (immediate []prelude.Delivery, yield bool, r result.Result, bad bool) {
	cfg := s.c.run.cfg
	if r, over := s.frontOverLimit(reqs); over { // queue.go
		return nil, false, r, true
	}
	for _, q := range reqs {
		if q.ID <= 0 || s.c.seen[q.ID] {
			return nil, false, result.Failed(result.CodeInternalError,
				fmt.Sprintf("guest bridge protocol violated: request id %d is not fresh", q.ID)), true
		}
		s.c.seen[q.ID] = true
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
				immediate = append(immediate, unknownToolDelivery(q.ID, q.Tool))
				continue
			}
			if d, over := oversizedInput(q.ID, q.Input, cfg); over { // CM-LIM-07, bridgelimit.go
				immediate = append(immediate, d)
				continue
			}
			if s.queueing() { // queue.go: CM-NEST-05, CM-NEST-06
				s.enqueue(q, t.ID, t.Spec)
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
		case opMCPTool, opMCPResource, opMCPPrompt: // mcp.go
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
		case prelude.OpTimer, prelude.OpClearTimer: // timers.go: CM-NEST-13
			if d, ok := s.timerOp(q); ok {
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
			immediate = append(immediate, errDelivery(q.ID, "Error", fmt.Sprintf("unknown bridge operation %q", q.Op), "invalid_input", nil))
		}
	}
	immediate = append(immediate, s.refill()...) // queue.go
	return immediate, yield, r, false
}

// unknownToolDelivery rejects nested request id for tool, a catalog id the
// run's current catalog does not hold (CM-GUEST-05, CM-RES-07).
func unknownToolDelivery(id int64, tool string) prelude.Delivery {
	return errDelivery(id, "ToolError", fmt.Sprintf("Unknown tool id %q. Use tools.search(query) or ALL_TOOLS to find tool ids.", tool), "invalid_input", nil)
}

func errDelivery(id int64, name, msg, code string, data json.RawMessage) prelude.Delivery {
	e := map[string]any{"name": name, "message": msg}
	if code != "" {
		e["code"] = code
	}
	if len(data) > 0 {
		e["data"] = data
	}
	b, _ := json.Marshal(e)
	return prelude.Delivery{ID: id, OK: false, Error: b}
}

func (s *step) inflightCount() int {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	return len(s.c.inflight)
}

// directPending reports whether a tools.call of the cell is in flight: a
// call to a harness tool that is neither a bridge call (namespace, MCP,
// CM-EXEC-15) nor a timer. Options.SuspendEagerly suspends at once then.
func (s *step) directPending() bool {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	for id, n := range s.c.inflight {
		if n.toolID != "" && !s.c.bridged[id] {
			return true
		}
	}
	return false
}

// start runs one nested call in its own goroutine (CM-NEST-01, CM-NEST-04).
func (s *step) startCall(q prelude.Request, toolID string, spec protocol.ToolSpec) {
	callID := s.c.callID(q.ID)
	input := wellFormedInput(q.Input)
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

// wellFormedInput is a nested call's input as it leaves: well-formed (CM-EXEC-21), {} when none.
func wellFormedInput(in json.RawMessage) json.RawMessage {
	input := json.RawMessage(result.WellFormed(in))
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	return input
}

// launch registers request reqID as in flight under toolID (pendingToolCalls;
// calledToolIds when called) and runs invoke in its own goroutine on the
// cell's call context; the outcome becomes the request's delivery. Harness
// tools and MCP calls share it: one executor path (CM-MCP-01).
func (s *step) launch(reqID int64, toolID string, called bool, invoke func(context.Context) (json.RawMessage, error)) {
	c := s.c
	c.mu.Lock()
	if c.state == "ended" {
		c.mu.Unlock()
		return
	}
	c.inflight[reqID] = &nestedCall{reqID: reqID, callID: c.callID(reqID), toolID: toolID}
	if called {
		c.calledTools = append(c.calledTools, toolID)
	}
	c.mu.Unlock()
	// Catalog calls count for executionMode across cells (runsched.go,
	// CM-NEST-12); timers and MCP resource reads are no catalog calls.
	_, catalogued := c.run.catalog().Lookup(toolID)
	sequential := s.sequentialTool(toolID)
	if catalogued {
		c.run.sched.begin(sequential)
	}
	go func() {
		if catalogued {
			defer c.run.sched.end(sequential)
		}
		if c.callCtx.Err() != nil {
			return // the cell ended before the call left: never send it (CM-NEST-23)
		}
		v, err := s.invokeBounded(c, c.callID(reqID), toolID, invoke) // nestdeadline.go
		var d prelude.Delivery
		if err != nil {
			var te *ToolError
			if errors.As(err, &te) {
				d = errDelivery(reqID, "ToolError", te.Message, string(result.CodeNestedToolFailed), te.Data)
			} else {
				d = errDelivery(reqID, "ToolError", err.Error(), string(result.CodeNestedToolFailed), nil)
			}
		} else if rej, over := oversizedResult(reqID, v, c.run.cfg); over { // CM-LIM-07, bridgelimit.go
			d = rej
		} else {
			if !json.Valid(v) {
				v = json.RawMessage("null")
			}
			d = prelude.Delivery{ID: reqID, OK: true, Value: v}
		}
		select {
		case c.done <- completion{reqID: reqID, d: d}:
		case <-c.callCtx.Done():
		}
	}()
}

// collect waits up to wait for at least one completion and returns every
// completion available then. ok is false when none arrived and wake (nil:
// never) was not closed; a closed wake gives ok with no deliveries.
func (s *step) collect(ctx context.Context, wait time.Duration, wake <-chan struct{}) ([]prelude.Delivery, bool) {
	var ds []prelude.Delivery
	take := func(cp completion) {
		s.c.mu.Lock()
		if _, ok := s.c.inflight[cp.reqID]; ok {
			delete(s.c.inflight, cp.reqID)
			ds = append(ds, cp.d)
		}
		s.c.mu.Unlock()
	}
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case cp := <-s.c.done:
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
		case cp := <-s.c.done:
			take(cp)
		default:
			return ds, len(ds) > 0
		}
	}
}

func (s *step) deliver(ctx context.Context, ds []prelude.Delivery) error {
	s.noteToolFailures(ds)
	return s.c.br.Deliver(ctx, s.vm, ds)
}
