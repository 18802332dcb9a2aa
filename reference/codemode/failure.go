package codemode

import (
	"errors"
	"fmt"
	"strings"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/spec/result"
)

// guestFailure is the failed result of a guest error (CM-EXEC-13): the
// engine's error name and message, no host stack frames. Out of memory never
// gets here: QuickJS-NG makes it uncatchable, so it is an engine trap.
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
	case f.Code == string(result.CodeNestedToolFailed) && f.Name == "ToolError" && s.deliveredToolFailure(f.Message):
		return result.Failed(result.CodeNestedToolFailed, msg)
	}
	return result.Result{Status: result.StatusFailed, Error: msg, Line: s.c.sourceLine(f.Line, f.Column)}
}

// trapResult maps a failed host-level evaluation to a result by the engine's
// typed errors.
func (s *step) trapResult(err error) result.Result {
	var ex *engine.Exception
	var unc *engine.Uncatchable
	switch {
	case errors.Is(err, engine.ErrDeadline):
		return s.timeout() // waits.go: the guest's, or mostly waiting (issue 28 N12)
	case errors.Is(err, engine.ErrCanceled):
		return result.Failed(result.CodeAborted, "the code mode run was aborted")
	case errors.Is(err, engine.ErrOutOfMemory):
		return s.limit(result.CodeMemoryLimitExceeded,
			fmt.Sprintf("the guest exceeded memoryLimitBytes (%d bytes, out of memory); the VM was terminated", s.c.run.cfg.MemoryLimitBytes))
	case errors.As(err, &unc):
		// A limit the engine enforces on the guest (string too long): the
		// guest's error, with the engine's text, not an engine fault.
		return result.Result{Status: result.StatusFailed, Error: unc.Message + " (uncatchable: the engine ended the cell)"}
	case errors.As(err, &ex):
		return result.Failed(result.CodeInternalError, "bridge evaluation failed: "+ex.Message)
	}
	return engineFault(err) // CM-EXEC-23: neither the deadline nor the memory limit
}
