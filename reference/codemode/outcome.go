package codemode

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/spec/result"
)

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
	r.NetworkContent = s.c.network.taken() // the model gets it wrapped as untrusted (CM-NEST-20)
	return r
}

// errorCutMark ends an error text cut to maxOutputBytes.
const errorCutMark = "… (error truncated to maxOutputBytes)"

// fail ends the cell: VM discarded, snapshot deleted, nested calls canceled.
func (s *step) fail(r result.Result) result.Result {
	s.keepSunk() // output written before the failure stays (CM-EXEC-14)
	s.closeVM()
	s.releaseSlot()
	s.rt.forget(s.c, "failed")
	return s.finish(r)
}

func (s *step) complete(value json.RawMessage) result.Result {
	if len(value) == 0 {
		value = json.RawMessage("null")
	}
	value = result.WellFormed(value) // CM-EXEC-21
	if s.outBytes+result.ContentSize(value) > s.c.run.cfg.MaxOutputBytes {
		if v, ok := s.autoRetain(value); ok { // feature results (autoretain.go, CM-RES-04)
			return s.completeWith(v)
		}
		return s.fail(s.limit(result.CodeOutputLimitExceeded, fmt.Sprintf("output and value exceed maxOutputBytes (%d bytes)", s.c.run.cfg.MaxOutputBytes)))
	}
	return s.completeWith(value)
}

// completeWith ends the cell completed with value (within maxOutputBytes).
func (s *step) completeWith(value json.RawMessage) result.Result {
	s.closeVM()
	s.releaseSlot()
	s.commitStore() // CM-STO-02: only a completed cell commits
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
	// Reserve the process-wide suspended-run slot before the snapshot is
	// taken: concurrent suspensions never pass the limit (CM-RUN-05).
	if err := s.rt.opts.Admission.reserveSuspended(); err != nil {
		return s.fail(tooManySuspended(err))
	}
	s.detachSink()
	snap, err := s.rt.opts.Suspender.Suspend(s.vm, cfg.MaxSnapshotBytes)
	s.vm = nil // owned by the suspender now
	s.releaseSlot()
	if err != nil || snap.Bytes() > cfg.MaxSnapshotBytes {
		s.rt.opts.Admission.releaseSuspended() // no snapshot is parked
	}
	if errors.Is(err, engine.ErrSnapshotTooLarge) {
		return s.fail(s.limit(result.CodeSnapshotLimitExceeded,
			fmt.Sprintf("the VM snapshot exceeds maxSnapshotBytes (%d bytes)", cfg.MaxSnapshotBytes)))
	}
	if err != nil {
		return s.fail(result.Failed(result.CodeInternalError, "snapshot failed: "+err.Error()))
	}
	if snap.Bytes() > cfg.MaxSnapshotBytes {
		snap.Release()
		return s.fail(s.limit(result.CodeSnapshotLimitExceeded,
			fmt.Sprintf("the VM snapshot (%d bytes) exceeds maxSnapshotBytes (%d bytes)", snap.Bytes(), cfg.MaxSnapshotBytes)))
	}
	s.c.mu.Lock()
	if s.c.state == "ended" {
		// Aborted or ended while the snapshot was taken: never park it.
		s.c.mu.Unlock()
		snap.Release()
		s.rt.opts.Admission.releaseSuspended()
		return s.fail(result.Failed(result.CodeAborted, "the code mode run was aborted"))
	}
	s.c.snap = snap
	s.c.state = "waiting"
	s.c.expires = s.rt.opts.Now().Add(time.Duration(cfg.SnapshotTTLSeconds) * time.Second)
	s.c.mu.Unlock()
	s.c.run.noteSnapshot(result.SnapshotCreated, s.c.id, snap)
	s.rt.armSweep() // sweep.go: the snapshot is deleted at expiry without a request
	return s.finish(result.Result{Status: result.StatusWaiting, RunID: s.c.id, Reason: reason, PendingToolCalls: s.c.pendingCalls()})
}

func (s *step) telemetry() *result.Telemetry {
	r := s.c.run
	r.mu.Lock()
	t := &result.Telemetry{VisibleTools: r.visible, CatalogSize: len(r.catalog().Tools), CatalogSources: r.catalog().Sources(),
		ExecCount: r.execCount, WaitCount: r.waitCount}
	r.mu.Unlock()
	s.c.mu.Lock()
	t.SearchCount, t.DescribeCount = s.c.counts["search"], s.c.counts["describe"]
	s.c.mu.Unlock()
	called := s.c.calls.Called()
	t.CallCount = len(called)
	t.CalledToolIDs = called
	t.LimitFailures = s.limitErr
	t.DurationMs = time.Since(s.start).Milliseconds()
	t.SnapshotEvents = r.takeSnapshotEvents()
	return t
}
