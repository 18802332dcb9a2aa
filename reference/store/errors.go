package store

import "errors"

// Errors of the results store and the session store. The guest meets them as
// catchable errors (reference/codemode/storeops.go); match with errors.Is.
var (
	// ErrResultsFull: a save would pass 64 entries or the byte budget
	// min(memoryLimitBytes, maxSnapshotBytes) (CM-RES-02). Existing entries
	// are kept.
	ErrResultsFull = errors.New("results store is full")
	// ErrUnknownReference: the reference was never saved in this run, was
	// deleted, or expired with its run (CM-RES-03).
	ErrUnknownReference = errors.New("unknown or expired results reference")
	// ErrResultsCleared: the store was cleared with its catalog lifetime
	// (run.abort, run.end, a catalog replacement or restriction): a cell
	// that started before keeps it but can no longer save or load
	// (CM-RES-03, CM-RES-07).
	ErrResultsCleared = errors.New("the results store was cleared: the run's catalog was torn down, replaced or restricted, or the run aborted")
	// ErrNotJSON: the value is not JSON-serialisable.
	ErrNotJSON = errors.New("value is not JSON")
	// ErrUnbound: store/load without a bound session, or in headless or
	// restart-safe execution (CM-STO-04).
	ErrUnbound = errors.New("store and load are unavailable: no session branch is bound to this run (or it is headless/restart-safe)")
	// ErrBadKey: a store key that is not a non-empty string of at most
	// MaxKeyBytes bytes.
	ErrBadKey = errors.New("store key must be a non-empty string of at most 256 bytes")
	// ErrValueTooLarge: a stored value over the branch's byte budget.
	ErrValueTooLarge = errors.New("stored value exceeds the session store's byte budget")
	// ErrStoreFull: a store() past the cell's key count or byte budget, or
	// past the process's MaxProcessBytes (sessions.go).
	ErrStoreFull = errors.New("session store is full")
	// ErrAppendFailed: the openclaw.code-mode-store transcript entry of a
	// completed cell could not be appended; nothing was committed (CM-STO-06).
	ErrAppendFailed = errors.New("the session store commit could not be appended to the transcript")
	// ErrLeafMismatch: the session's live leaf is on another branch than the
	// run's; store and load refuse rather than read another branch (CM-STO-10).
	ErrLeafMismatch = errors.New("the session's live leaf is on another branch: store and load refuse to use this run's branch")
)
