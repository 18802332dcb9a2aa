package codemode

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/spec/result"
)

// engineFault is the result of an engine failure that is neither the
// deadline, an abort nor out of memory: a wasm trap or another crash of the
// engine itself. It is reported as what it is, internal_error, never as a
// guest error such as a RangeError (CM-EXEC-23).
func engineFault(err error) result.Result {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return result.Failed(result.CodeInternalError,
		"internal error: the JavaScript engine crashed ("+msg+"); this is a fault of the runtime, not of the guest code, and the cell was ended")
}

// tooManySuspended is the failed result of a suspension beyond the
// process's suspended-run limit: CM-RUN-05's text, with the code of a
// snapshot limit (spec/protocol.md §6, §12.9).
func tooManySuspended(err error) result.Result {
	return result.Failed(result.CodeSnapshotLimitExceeded, err.Error())
}

// startFailure is the result of a VM that could not be started or restored
// for a cell: an abort is aborted, a passed deadline is timeout (the call's
// timeoutMs ran out, CM-LIM-06, also under load), the process's live-VM
// limit is runtime_unavailable, and only what remains is what fail says.
func (s *step) startFailure(vctx context.Context, err error, code result.ErrorCode, what string) result.Result {
	switch {
	case s.c.callCtx.Err() != nil || errors.Is(vctx.Err(), context.Canceled) || errors.Is(err, engine.ErrCanceled):
		return result.Failed(result.CodeAborted, "the code mode run was aborted")
	case errors.Is(err, ErrTooManyLiveVMs):
		return result.Failed(result.CodeRuntimeUnavailable,
			fmt.Sprintf("no VM could be created within timeoutMs (%d ms): %v; retry later", s.c.run.cfg.TimeoutMs, err))
	case errors.Is(err, ErrMemoryBudget):
		return result.Failed(result.CodeRuntimeUnavailable, fmt.Sprintf("no VM could be created: %v", err))
	case errors.Is(vctx.Err(), context.DeadlineExceeded) || errors.Is(err, engine.ErrDeadline) || errors.Is(err, context.DeadlineExceeded):
		note, _, _ := s.waitNote()
		if note != "" {
			note = ": " + note
		}
		return s.limit(result.CodeTimeout,
			fmt.Sprintf("the cell exceeded timeoutMs (%d ms) before its VM was %s%s (the runtime is under load)", s.c.run.cfg.TimeoutMs, what, note))
	}
	return result.Failed(code, err.Error())
}
