package engine

import "errors"

// Errors of the engine, matched with errors.Is. A failed call into a VM
// returns a *Trap wrapping one of them (or the wasm runtime's own error), or
// an *Exception for a JavaScript exception that reached the host.
var (
	// ErrUnavailable wraps every failure to load the QuickJS module: the
	// wasm is not installed, does not match its pinned hash, or does not
	// compile (CM-CFG-07).
	ErrUnavailable = errors.New("quickjs-wasi runtime unavailable")
	// ErrDeadline: the call's context deadline passed; the engine's interrupt
	// handler stopped the guest, or the watchdog abandoned the VM (CM-LIM-01).
	ErrDeadline = errors.New("deadline exceeded")
	// ErrCanceled: the call's context was canceled (abort, run end).
	ErrCanceled = errors.New("canceled")
	// ErrOutOfMemory: QuickJS failed an allocation (JS_SetMemoryLimit) or the
	// wasm memory cap was reached (CM-LIM-02).
	ErrOutOfMemory = errors.New("out of memory")
	// ErrUncatchable: the engine threw an uncatchable error of its own that
	// is neither an interrupt nor out of memory: a limit QuickJS-NG enforces
	// on the guest, such as "InternalError: string too long" (the rope
	// string length limit). It is the guest's failure, not the engine's; the
	// error's text follows the colon.
	ErrUncatchable = errors.New("uncatchable guest error")
	// ErrAbandoned is wrapped together with ErrDeadline or ErrCanceled when a
	// native operation did not reach an interrupt check within Grace after
	// the deadline and the VM was given up (its wasm call may still finish in
	// the background; the VM is never used again).
	ErrAbandoned = errors.New("the VM did not stop at the interrupt and was abandoned")
	// ErrClosed: the VM was closed (or trapped before) and cannot run again.
	ErrClosed = errors.New("vm closed")
	// ErrSnapshot: a snapshot is malformed or does not fit its engine.
	ErrSnapshot = errors.New("malformed snapshot")
)

// Exception is a JavaScript exception that escaped a host-level evaluation.
// The VM stays usable.
type Exception struct{ Message string }

// Uncatchable is ErrUncatchable with the engine's error text (Message, e.g.
// "InternalError: string too long"); errors.Is(err, ErrUncatchable) matches it.
type Uncatchable struct{ Message string }

func (e *Uncatchable) Error() string        { return ErrUncatchable.Error() + ": " + e.Message }
func (e *Uncatchable) Is(target error) bool { return target == ErrUncatchable }

func (e *Exception) Error() string { return e.Message }

// Trap is a failure of the VM itself: a wasm trap (out-of-bounds access from
// deep recursion, an exhausted memory cap), an interrupt (ErrDeadline,
// ErrCanceled), an uncatchable out-of-memory error (ErrOutOfMemory), or a
// closed instance (ErrClosed). After a Trap the VM is unusable and must be
// closed.
type Trap struct{ Err error }

func (t *Trap) Error() string { return "engine trap: " + t.Err.Error() }
func (t *Trap) Unwrap() error { return t.Err }
