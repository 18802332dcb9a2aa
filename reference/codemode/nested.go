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
	if r, over := s.batchOverLimit(reqs); over {
		return nil, false, r, true
	}
	for _, q := range reqs {
		if q.ID <= 0 || s.c.seen[q.ID] {
			return nil, false, result.Failed(result.CodeInternalError,
				fmt.Sprintf("guest bridge protocol violated: request id %d is not fresh", q.ID)), true
		}
		s.c.seen[q.ID] = true
		switch q.Op {
		case "call":
			t, ok := s.c.run.catalog.Lookup(q.Tool)
			if !ok || t.Spec.Source == protocol.SourceMCP {
				immediate = append(immediate, errDelivery(q.ID, "ToolError", fmt.Sprintf("Unknown tool id %q. Use tools.search(query) or ALL_TOOLS to find tool ids.", q.Tool), "invalid_input", nil))
				continue
			}
			if d, over := oversizedInput(q.ID, q.Input, cfg); over { // CM-LIM-07, bridgelimit.go
				immediate = append(immediate, d)
				continue
			}
			if int64(s.inflightCount()) >= cfg.MaxPendingToolCalls {
				return nil, false, s.limit(result.CodeTooManyPendingToolCalls,
					fmt.Sprintf("more than maxPendingToolCalls (%d) nested tool calls in flight; await smaller batches", cfg.MaxPendingToolCalls)), true
			}
			s.startCall(q, t.ID, t.Spec)
		case "yield":
			s.c.mu.Lock()
			s.c.yieldID = q.ID
			s.c.mu.Unlock()
			yield = true
		default:
			immediate = append(immediate, errDelivery(q.ID, "Error", fmt.Sprintf("unknown bridge operation %q", q.Op), "invalid_input", nil))
		}
	}
	return immediate, yield, r, false
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

// start runs one nested call in its own goroutine (CM-NEST-01, CM-NEST-04).
func (s *step) startCall(q prelude.Request, toolID string, spec protocol.ToolSpec) {
	c := s.c
	callID := fmt.Sprintf("%s/call-%03d", c.id, q.ID)
	c.mu.Lock()
	if c.state == "ended" {
		c.mu.Unlock()
		return
	}
	c.inflight[q.ID] = &nestedCall{reqID: q.ID, callID: callID, toolID: toolID}
	c.calledTools = append(c.calledTools, toolID)
	c.mu.Unlock()
	input := json.RawMessage(result.WellFormed(q.Input)) // CM-EXEC-21
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	p := protocol.InvokeParams{Run: c.run.id, ToolCallID: callID, ParentToolCallID: s.parent,
		CatalogID: toolID, Tool: spec.Name, Source: spec.Source, Owner: spec.Owner, Input: input, Context: c.run.ctx}
	go func() {
		if c.callCtx.Err() != nil {
			return // the cell ended before the call left: never send it (CM-NEST-23)
		}
		v, err := s.rt.inv.Invoke(c.callCtx, p)
		var d prelude.Delivery
		if err != nil {
			var te *ToolError
			if errors.As(err, &te) {
				d = errDelivery(q.ID, "ToolError", te.Message, string(result.CodeNestedToolFailed), te.Data)
			} else {
				d = errDelivery(q.ID, "ToolError", err.Error(), string(result.CodeNestedToolFailed), nil)
			}
		} else if rej, over := oversizedResult(q.ID, v, c.run.cfg); over { // CM-LIM-07, bridgelimit.go
			d = rej
		} else {
			if !json.Valid(v) {
				v = json.RawMessage("null")
			}
			d = prelude.Delivery{ID: q.ID, OK: true, Value: v}
		}
		select {
		case c.done <- completion{reqID: q.ID, d: d}:
		case <-c.callCtx.Done():
		}
	}()
}

// collect waits up to wait for at least one completion and returns every
// completion available then. ok is false when none arrived.
func (s *step) collect(ctx context.Context, wait time.Duration) ([]prelude.Delivery, bool) {
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
