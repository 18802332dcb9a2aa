package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// cell is one code mode run (one exec and the waits that continue it). Its
// runId is the id wait takes.
type cell struct {
	id  string
	run *agentRun

	// callCtx outlives a single exec/wait: nested calls keep running while
	// the cell is suspended. cancel ends them (terminal states, abort).
	callCtx context.Context
	cancel  context.CancelFunc
	done    chan completion // buffered: goroutines never block

	mu       sync.Mutex
	state    string // running | waiting | resuming | ended
	snap     Parked
	expires  time.Time
	inflight map[int64]*nestedCall
	ready    []prelude.Delivery // settled results not yet delivered to the VM
	yieldID  int64

	counts      map[string]int
	calledTools []string
	seen        map[int64]bool // bridge request ids already taken
}

type nestedCall struct {
	reqID  int64
	callID string
	toolID string
}

type completion struct {
	reqID int64
	d     prelude.Delivery
}

func (c *cell) parked() Parked {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.snap
}

func (c *cell) expired(now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state == "waiting" && !c.expires.IsZero() && now.After(c.expires)
}

// terminate deletes the snapshot and cancels in-flight nested calls; nothing
// of the cell is kept (CM-RUN-02).
func (c *cell) terminate() {
	c.mu.Lock()
	c.state = "ended"
	if c.snap != nil {
		c.snap.Release()
	}
	c.snap = nil
	c.inflight = map[int64]*nestedCall{}
	c.ready = nil
	c.mu.Unlock()
	c.cancel()
}

// pendingCalls lists unsettled nested calls in request order.
func (c *cell) pendingCalls() []result.PendingToolCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]result.PendingToolCall, 0, len(c.inflight))
	for _, n := range c.inflight {
		out = append(out, result.PendingToolCall{ID: n.callID, ToolID: n.toolID})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// step is the state of one exec or wait call on a cell.
type step struct {
	rt       *Runtime
	c        *cell
	vm       *engine.VM
	parent   string // the exec/wait tool call id
	start    time.Time
	deadline time.Time
	output   []result.Output
	outBytes int64
	limitErr []result.ErrorCode
}

// drive runs the VM until the cell completes, fails or suspends.
func (s *step) drive(ctx context.Context) result.Result {
	cfg := s.c.run.cfg
	vctx, cancel := context.WithDeadline(ctx, s.deadline)
	defer cancel()
	// Abort and run end cancel the cell's context: that must also stop the VM
	// mid-computation and any wait for nested calls (CM-NEST-08).
	stop := context.AfterFunc(s.c.callCtx, cancel)
	defer stop()
	window := time.Duration(float64(cfg.TimeoutMs)*s.rt.opts.DrainFraction) * time.Millisecond
	for {
		if _, err := s.vm.RunJobs(vctx); err != nil {
			return s.fail(s.trapResult(err))
		}
		raw, err := s.vm.Eval(vctx, prelude.PollScript, "poll")
		if err != nil {
			return s.fail(s.trapResult(err))
		}
		if s.vm.OutOfMemory() {
			// The engine saw an allocation failure: the VM is terminated even
			// if the guest caught the error (CM-LIM-02).
			return s.fail(s.limit(result.CodeMemoryLimitExceeded,
				fmt.Sprintf("the guest exceeded memoryLimitBytes (%d bytes, out of memory); the VM was terminated", cfg.MemoryLimitBytes)))
		}
		var p prelude.Poll
		if err := json.Unmarshal([]byte(raw), &p); err != nil {
			return s.fail(result.Failed(result.CodeInternalError, "guest bridge state is corrupt: "+err.Error()))
		}
		if r, bad := s.takeOutput(p.Output); bad {
			return s.fail(r)
		}
		s.c.mu.Lock()
		for k, v := range p.Counts {
			s.c.counts[k] = v
		}
		s.c.mu.Unlock()
		if p.Fatal != nil {
			code := result.ErrorCode(p.Fatal.Code)
			if !code.Valid() {
				code = result.CodeInternalError
			}
			if code == result.CodeMemoryLimitExceeded || code == result.CodeOutputLimitExceeded {
				return s.fail(s.limit(code, p.Fatal.Message))
			}
			return s.fail(result.Failed(code, p.Fatal.Message))
		}
		if p.State == "error" {
			// The outcome is determined: calls still queued in the guest
			// are never dispatched (CM-NEST-23).
			return s.fail(s.guestFailure(p))
		}
		immediate, yield, r, bad := s.dispatch(p.Requests)
		if bad {
			return s.fail(r)
		}
		if len(immediate) > 0 {
			if err := s.deliver(vctx, immediate); err != nil {
				return s.fail(s.trapResult(err))
			}
			continue
		}
		inflight := s.inflightCount()
		switch p.State {
		case "error":
			return s.fail(s.guestFailure(p))
		case "done":
			if inflight == 0 {
				return s.complete(p.Value)
			}
		}
		if yield {
			return s.suspend(result.ReasonYield)
		}
		if inflight == 0 && p.State == "running" {
			return s.fail(result.Result{Status: result.StatusFailed,
				Error: "the cell is still pending but no host work is pending: a promise never settles"})
		}
		// Idle guest, host work pending: drain what settles within the window.
		wait := window
		if left := time.Until(s.deadline) - 20*time.Millisecond; left < wait {
			wait = left
		}
		ds, ok := s.collect(vctx, wait)
		if !ok {
			if s.c.callCtx.Err() != nil || errors.Is(ctx.Err(), context.Canceled) {
				return s.fail(result.Failed(result.CodeAborted, "the code mode run was aborted"))
			}
			return s.suspend(result.ReasonPendingTools)
		}
		if err := s.deliver(vctx, ds); err != nil {
			return s.fail(s.trapResult(err))
		}
	}
}

// takeOutput appends guest output and enforces maxOutputBytes on what this
// result will carry (CM-LIM-03).
func (s *step) takeOutput(items []json.RawMessage) (result.Result, bool) {
	for _, raw := range items {
		raw = result.WellFormed(raw) // CM-EXEC-21
		var o result.Output
		if err := json.Unmarshal(raw, &o); err != nil || (o.Type != "text" && o.Type != "json") {
			return result.Failed(result.CodeInternalError, "guest produced a malformed output item"), true
		}
		if r, over := s.keepOutput(o, raw); over {
			return r, true
		}
	}
	return result.Result{}, false
}

func (s *step) limit(code result.ErrorCode, msg string) result.Result {
	s.limitErr = append(s.limitErr, code)
	return result.Failed(code, msg)
}

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
	_, err := s.vm.Eval(ctx, prelude.DeliverScript(ds), "deliver")
	return err
}

// guestFailure is the failed result of a guest error (CM-EXEC-13): the
// engine's error name and message, no host stack frames.
func (s *step) guestFailure(p prelude.Poll) result.Result {
	f := p.Failure
	if f == nil {
		return result.Failed(result.CodeInternalError, "the cell failed without an error")
	}
	msg := f.Name + ": " + f.Message
	if f.Name == "" {
		msg = f.Message
	}
	switch {
	case strings.Contains(f.Message, "could not load module"):
		return result.Failed(result.CodeModuleAccessDenied, "module access is denied in code mode: "+msg)
	case f.Name == "InternalError" && strings.Contains(f.Message, "out of memory"):
		return s.limit(result.CodeMemoryLimitExceeded, "memoryLimitBytes exceeded: "+msg)
	case f.Code == string(result.CodeNestedToolFailed) && f.Name == "ToolError":
		return result.Failed(result.CodeNestedToolFailed, msg)
	}
	return result.Result{Status: result.StatusFailed, Error: msg}
}

// trapResult maps a failed host-level evaluation to a result.
func (s *step) trapResult(err error) result.Result {
	var ex *engine.Exception
	if errors.As(err, &ex) {
		if strings.Contains(ex.Message, "out of memory") {
			return s.limit(result.CodeMemoryLimitExceeded, "memoryLimitBytes exceeded: "+ex.Message)
		}
		return result.Failed(result.CodeInternalError, "bridge evaluation failed: "+ex.Message)
	}
	switch {
	case errors.Is(err, engine.ErrDeadline):
		return s.limit(result.CodeTimeout, fmt.Sprintf("the cell exceeded timeoutMs (%d ms)", s.c.run.cfg.TimeoutMs))
	case errors.Is(err, engine.ErrCanceled):
		return result.Failed(result.CodeAborted, "the code mode run was aborted")
	}
	if strings.Contains(err.Error(), "out of memory") ||
		s.vm != nil && s.vm.MemoryBytes() >= int64(engine.PagesFor(s.c.run.cfg.MemoryLimitBytes)-16)*engine.PageSize {
		return s.limit(result.CodeMemoryLimitExceeded, "memoryLimitBytes exceeded: the VM reached its memory cap")
	}
	return engineFault(err)
}

func (s *step) closeVM() {
	if s.vm != nil {
		s.vm.Close(context.Background())
		s.vm = nil
	}
}

func (s *step) finish(r result.Result) result.Result {
	// The error text is guest- or tool-controlled: bound it like output.
	r.Error = strings.ToValidUTF8(r.Error, "\uFFFD") // CM-EXEC-21
	if limit := s.errorBudget(); len(r.Error) > limit {
		cut := max(limit-len(errorCutMark), 0)
		for cut > 0 && !utf8.RuneStart(r.Error[cut]) {
			cut--
		}
		r.Error = r.Error[:cut] + errorCutMark
	}
	if len(s.output) > 0 {
		r.Output = s.output
	}
	r.Telemetry = s.telemetry()
	return r
}

// errorCutMark ends an error text cut to maxOutputBytes.
const errorCutMark = "… (error truncated to maxOutputBytes)"

// fail ends the cell: VM discarded, snapshot deleted, nested calls canceled.
func (s *step) fail(r result.Result) result.Result {
	s.closeVM()
	s.rt.forget(s.c, "failed")
	return s.finish(r)
}

func (s *step) complete(value json.RawMessage) result.Result {
	if len(value) == 0 {
		value = json.RawMessage("null")
	}
	value = result.WellFormed(value) // CM-EXEC-21
	if s.outBytes+result.ContentSize(value) > s.c.run.cfg.MaxOutputBytes {
		return s.fail(s.limit(result.CodeOutputLimitExceeded, fmt.Sprintf("output and value exceed maxOutputBytes (%d bytes)", s.c.run.cfg.MaxOutputBytes)))
	}
	s.closeVM()
	s.rt.forget(s.c, "completed")
	return s.finish(result.Result{Status: result.StatusCompleted, Value: value})
}

// suspend serializes the VM and parks the cell (CM-EXEC-08, CM-RUN-01,
// CM-RUN-04, CM-RUN-05).
func (s *step) suspend(reason result.Reason) result.Result {
	cfg := s.c.run.cfg
	if s.c.callCtx.Err() != nil {
		return s.fail(result.Failed(result.CodeAborted, "the code mode run was aborted"))
	}
	snap, err := s.rt.opts.Suspender.Suspend(s.vm)
	s.vm = nil // owned by the suspender now
	if err != nil {
		return s.fail(result.Failed(result.CodeInternalError, "snapshot failed: "+err.Error()))
	}
	if snap.Bytes() > cfg.MaxSnapshotBytes {
		snap.Release()
		return s.fail(s.limit(result.CodeSnapshotLimitExceeded,
			fmt.Sprintf("the VM snapshot (%d bytes) exceeds maxSnapshotBytes (%d bytes)", snap.Bytes(), cfg.MaxSnapshotBytes)))
	}
	if s.rt.suspendedCount() >= s.rt.opts.MaxSuspendedRuns {
		snap.Release()
		return s.fail(result.Result{Status: result.StatusFailed, Error: "too many suspended code mode runs."})
	}
	s.c.mu.Lock()
	if s.c.state == "ended" {
		// Aborted or ended while the snapshot was taken: never park it.
		s.c.mu.Unlock()
		snap.Release()
		return s.fail(result.Failed(result.CodeAborted, "the code mode run was aborted"))
	}
	s.c.snap = snap
	s.c.state = "waiting"
	s.c.expires = s.rt.opts.Now().Add(time.Duration(cfg.SnapshotTTLSeconds) * time.Second)
	s.c.mu.Unlock()
	s.c.run.noteSnapshot(result.SnapshotCreated, s.c.id, snap.Bytes())
	return s.finish(result.Result{Status: result.StatusWaiting, RunID: s.c.id, Reason: reason, PendingToolCalls: s.c.pendingCalls()})
}

func (s *step) telemetry() *result.Telemetry {
	r := s.c.run
	r.mu.Lock()
	t := &result.Telemetry{VisibleTools: r.visible, CatalogSize: len(r.catalog.Tools), CatalogSources: r.catalog.Sources(),
		ExecCount: r.execCount, WaitCount: r.waitCount}
	r.mu.Unlock()
	s.c.mu.Lock()
	t.SearchCount, t.DescribeCount = s.c.counts["search"], s.c.counts["describe"]
	t.CallCount = len(s.c.calledTools)
	t.CalledToolIDs = append([]string(nil), s.c.calledTools...)
	s.c.mu.Unlock()
	t.LimitFailures = s.limitErr
	t.DurationMs = time.Since(s.start).Milliseconds()
	t.SnapshotEvents = r.takeSnapshotEvents()
	return t
}
