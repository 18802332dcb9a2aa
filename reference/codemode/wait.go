package codemode

import (
	"context"
	"encoding/json"
	"time"

	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/spec/result"
)

// Messages of wait failures (001 [运行和快照生命周期], CM-EXEC-10).
const (
	MsgUnavailable  = "code mode run is unavailable or expired."
	MsgOtherSession = "code mode run belongs to a different session."
)

// Wait resumes a suspended cell from its snapshot (CM-EXEC-08, CM-EXEC-09,
// CM-EXEC-11, CM-RUN-01..03).
func (rt *Runtime) Wait(ctx context.Context, run, toolCallID string, input json.RawMessage) (result.Result, error) {
	r, ok := rt.run(run)
	if !ok {
		return result.Result{}, ErrUnknownRun
	}
	if !r.active {
		return result.Result{}, ErrInactive
	}
	start := time.Now()
	r.mu.Lock()
	r.waitCount++
	r.mu.Unlock()
	failNow := func(code result.ErrorCode, msg string) (result.Result, error) {
		res := result.Failed(code, msg)
		res.Telemetry = &result.Telemetry{VisibleTools: r.visible, CatalogSize: len(r.catalog().Tools), CatalogSources: r.catalog().Sources(),
			ExecCount: r.execCount, WaitCount: r.waitCount, DurationMs: time.Since(start).Milliseconds(), SnapshotEvents: r.takeSnapshotEvents()}
		return res, nil
	}
	var in result.WaitInput
	if err := json.Unmarshal(input, &in); err != nil || in.RunID == "" {
		return failNow(result.CodeInvalidInput, "wait needs {runId: string} from a waiting exec result")
	}
	rt.sweep()
	rt.mu.Lock()
	c, found := rt.cells[in.RunID]
	reason := rt.ended[in.RunID]
	rt.mu.Unlock()
	if !found {
		switch reason {
		case "expired": // CM-EXEC-19; under run-lifecycle-messages CM-EXEC-10
			return failNow(rt.opts.expiredCode(), MsgUnavailable)
		case "aborted": // CM-EXEC-19
			return failNow(result.CodeAborted, MsgUnavailable)
		}
		return failNow(result.CodeInvalidInput, MsgUnavailable)
	}
	if c.run != r {
		if c.run.ctx.SessionID != r.ctx.SessionID || c.run.ctx.SessionKey != r.ctx.SessionKey {
			return failNow(result.CodeInvalidInput, MsgOtherSession)
		}
		return failNow(result.CodeInvalidInput, MsgUnavailable)
	}
	r.mu.Lock()
	aborted := r.aborted
	r.mu.Unlock()
	if aborted {
		return failNow(result.CodeAborted, MsgUnavailable)
	}
	// Exactly one waiter moves the cell from waiting to resuming (CM-EXEC-11).
	c.mu.Lock()
	if c.state != "waiting" || c.snap == nil {
		c.mu.Unlock()
		return failNow(result.CodeInvalidInput, MsgUnavailable)
	}
	snap := c.snap
	c.snap = nil
	if !rt.opts.Defects.ResumeKeepsSuspendedPlace {
		c.adm.releaseSuspended()
	}
	c.state = "resuming"
	yieldID := c.yieldID
	c.yieldID = 0
	c.mu.Unlock()

	s := &step{rt: rt, c: c, parent: toolCallID, start: start, deadline: start.Add(time.Duration(r.cfg.TimeoutMs) * time.Millisecond)}
	if snap.Bytes() > r.cfg.MaxSnapshotBytes {
		r.noteSnapshot(result.SnapshotDeleted, c.id, snap)
		snap.Release()
		return s.fail(s.limit(result.CodeSnapshotLimitExceeded, "restoring the snapshot would exceed maxSnapshotBytes")), nil
	}
	vctx, cancel := context.WithDeadline(ctx, s.deadline)
	defer cancel()
	// run.abort and run.end during the restore stop it, as in Exec.
	stop := context.AfterFunc(c.callCtx, cancel)
	defer stop()
	done := phase(&s.waits.admission) // each phase's time, for a timeout's message (waits.go)
	err := s.admitVM(vctx)            // admission.go: the process's live-VM limit
	done()
	if err != nil {
		r.noteSnapshot(result.SnapshotDeleted, c.id, snap)
		snap.Release()
		return s.fail(s.startFailure(vctx, err, result.CodeSnapshotRestoreFailed, "restored")), nil
	}
	s.waits.restored = true
	done = phase(&s.waits.start)
	vm, err := rt.opts.Suspender.Resume(vctx, rt.eng, snap)
	done()
	if err != nil {
		r.noteSnapshot(result.SnapshotDeleted, c.id, snap)
		snap.Release()
		if f := s.startFailure(vctx, err, result.CodeSnapshotRestoreFailed, "restored"); f.Code != result.CodeSnapshotRestoreFailed {
			return s.fail(f), nil
		}
		return s.fail(result.Failed(result.CodeSnapshotRestoreFailed, "snapshot restore failed: "+err.Error())), nil
	}
	s.useVM(vm)
	s.endSetup()
	r.noteSnapshot(result.SnapshotRestored, c.id, snap)
	var ds []prelude.Delivery
	if yieldID != 0 {
		ds = append(ds, prelude.Delivery{ID: yieldID, OK: true, Value: json.RawMessage("null")})
	}
	settled, _ := s.collect(ctx, 0, nil)
	ds = append(ds, settled...)
	if len(ds) > 0 {
		if err := s.deliver(vctx, ds); err != nil {
			return s.fail(s.trapResult(err)), nil
		}
	}
	return s.drive(ctx), nil
}
