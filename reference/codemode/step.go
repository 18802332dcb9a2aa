package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/spec/result"
)

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
	slot     bool  // holds a live-VM slot of the process (admission.go)
	memory   int64 // bytes it holds of the process memory budget with the slot (membudget.go)
	sunkMu   sync.Mutex
	sunk     []json.RawMessage // output items from the VM's sink, not yet taken (sink.go)
	waits    callWaits         // where the call's budget went before the guest's code (waits.go)
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
		// Taken before this round's refill, so a call of another cell that
		// returns meanwhile still wakes a cell whose queue waits on it.
		runWake := s.c.run.sched.Watch()
		p, r, end := s.poll(vctx)
		if end {
			return r
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
		inflight, queued := s.inflightCount(), s.queuedCount()
		switch p.State {
		case "error":
			return s.fail(s.guestFailure(p))
		case "done":
			if inflight == 0 {
				return s.complete(p.Value)
			}
			if s.rt.opts.Defects.CompleteUndelivered {
				for s.inflightCount() > 0 {
					if _, ok := s.collect(vctx, time.Until(s.deadline), nil); !ok {
						break
					}
				}
				return s.complete(p.Value)
			}
		}
		if yield {
			return s.suspend(result.ReasonYield)
		}
		if inflight == 0 && queued == 0 && p.State == "running" {
			if s.c.callCtx.Err() != nil { // run.abort/run.end dropped its calls
				return s.fail(result.Failed(result.CodeAborted, "the code mode run was aborted"))
			}
			return s.fail(result.Result{Status: result.StatusFailed,
				Error: "the cell is still pending but no host work is pending: a promise never settles"})
		}
		// Idle guest, host work pending: drain what settles within the window.
		wait := window
		if s.rt.opts.SuspendEagerly && s.directPending() {
			wait = 0 // collect takes only what has settled, then the cell suspends
		}
		if left := time.Until(s.deadline) - 20*time.Millisecond; left < wait {
			wait = left
		}
		var wake <-chan struct{}
		if queued > 0 { // a queued call may wait on another cell's call (CM-NEST-12)
			wake = runWake
		}
		ds, ok := s.collect(vctx, wait, wake)
		if !ok {
			if s.c.callCtx.Err() != nil || errors.Is(ctx.Err(), context.Canceled) {
				return s.fail(result.Failed(result.CodeAborted, "the code mode run was aborted"))
			}
			return s.suspend(result.ReasonPendingTools)
		}
		if len(ds) == 0 {
			continue // woken by another cell's call: refill again
		}
		if s.rt.opts.Defects.RefillFirst {
			ds = append(ds, s.refill()...)
		}
		if err := s.deliver(vctx, ds); err != nil {
			return s.fail(s.trapResult(err))
		}
	}
}

// poll runs the guest's pending jobs and takes what it reports: output,
// counts and a fatal error. end is true when the cell has failed (r).
func (s *step) poll(vctx context.Context) (p prelude.Poll, r result.Result, end bool) {
	cfg := s.c.run.cfg
	if err := s.runJobs(vctx); err != nil {
		return p, s.fail(s.trapResult(err)), true
	}
	raw, err := s.c.br.Poll(vctx, s.vm)
	if err != nil {
		return p, s.fail(s.trapResult(err)), true
	}
	if r, bad := s.takeSunk(); bad {
		return p, s.fail(r), true
	}
	if s.vm.OutOfMemory() {
		// The engine saw an allocation failure: the VM is terminated even
		// if the guest caught the error (CM-LIM-02).
		return p, s.fail(s.limit(result.CodeMemoryLimitExceeded,
			fmt.Sprintf("the guest exceeded memoryLimitBytes (%d bytes, out of memory); the VM was terminated", cfg.MemoryLimitBytes))), true
	}
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		return p, s.fail(result.Failed(result.CodeInternalError, "guest bridge state is corrupt: "+err.Error())), true
	}
	if r, bad := s.takeOutput(p.Output); bad {
		return p, s.fail(r), true
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
			return p, s.fail(s.limit(code, p.Fatal.Message)), true
		}
		return p, s.fail(result.Failed(code, p.Fatal.Message)), true
	}
	return p, r, false
}

// bootAndStart boots the prelude with the run's catalog and limits in a VM
// restored from tpl and starts the model's code. bad is true when the cell
// has failed (r).
func (s *step) bootAndStart(ctx context.Context, tpl *booted, boot prelude.Boot, code string) (r result.Result, bad bool) {
	s.c.br = tpl.br
	booted := phase(&s.waits.boot)
	err := s.c.br.Boot(ctx, s.vm, boot)
	booted()
	if err != nil {
		return s.fail(s.bootFailure(err, boot.Index.Len())), true
	}
	s.endSetup()
	v, err := s.c.br.Start(ctx, s.vm, code)
	if err != nil {
		return s.fail(s.trapResult(err)), true
	}
	s.c.value = v
	if err := s.sealIfSettled(ctx); err != nil {
		return s.fail(s.trapResult(err)), true
	}
	return r, false
}

// bootFailure is why the prelude's boot with a catalog of n entries
// failed. The deadline and the memory limit are named as the run's setup,
// not the guest's doing: no guest code has run yet (issue 28 N12; N3: a
// catalog too big for memoryLimitBytes fails every cell here).
func (s *step) bootFailure(err error, n int) result.Result {
	cfg := s.c.run.cfg
	switch {
	case errors.Is(err, engine.ErrDeadline):
		note, _, _ := s.waitNote()
		return s.limit(result.CodeTimeout, fmt.Sprintf("the cell exceeded timeoutMs (%d ms) while its VM was being set up with the prelude and the run's catalog of %d tools, before any guest code ran: %s (the runtime is under load, or the catalog is large)", cfg.TimeoutMs, n, note))
	case errors.Is(err, engine.ErrOutOfMemory):
		return s.limit(result.CodeMemoryLimitExceeded, fmt.Sprintf("the run's catalog of %d tools does not fit in memoryLimitBytes (%d bytes): the VM ran out of memory booting it, before any guest code ran; raise memoryLimitBytes or prepare fewer tools", n, cfg.MemoryLimitBytes))
	}
	return s.trapResult(err)
}

// runJobs runs the guest's pending promise jobs. Until the cell's value is
// determined it runs them one at a time and checks the cell's promise after
// each, so that the prelude is sealed in the job that settled it: a nested
// call made by any later job (a continuation, a finally) is never
// dispatched (CM-NEST-23).
func (s *step) runJobs(ctx context.Context) error {
	for !s.c.sealed {
		ran, err := s.vm.RunJob(ctx)
		if err != nil || !ran {
			return err
		}
		if err := s.sealIfSettled(ctx); err != nil {
			return err
		}
	}
	_, err := s.vm.RunJobs(ctx)
	return err
}

func (s *step) sealIfSettled(ctx context.Context) error {
	if s.c.sealed || s.c.value == 0 {
		return nil
	}
	st, err := s.vm.PromiseStateOf(ctx, s.c.value)
	if err != nil || st == engine.PromisePending {
		return err
	}
	if err := s.c.br.Seal(ctx, s.vm); err != nil {
		return err
	}
	s.c.sealed = true
	return nil
}

func (s *step) closeVM() {
	s.detachSink()
	if s.vm != nil {
		s.vm.Close(context.Background())
		s.vm = nil
	}
}
