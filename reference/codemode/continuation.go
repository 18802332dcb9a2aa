package codemode

import (
	"context"
	"slices"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/spec/result"
)

// ContinuationSuspender is the live-continuation seam (spec/protocol.md §8,
// "Targets without snapshots"): a waiting cell keeps its live VM instance
// instead of a serialised snapshot, as a Node executor keeps its worker or
// an implementation keeps a promise alive. It conforms to everything but
// snapshot-executor, which a runtime using it does not declare (Features).
// It reports what §8 asks of such a target: the waiting VM counts in
// liveVMs, never in snapshots or snapshotBytes; suspendedRuns counts the
// waiting cell; telemetry.snapshotEvents carry kind "continuation" and no
// bytes; maxSnapshotBytes does not apply (there is no snapshot to measure).
// Targets of the harness: builtin:continuation and
// `codemode-reference serve --continuations`, which also set DrainFraction 1
// (wait the whole timeoutMs before suspending, which §10 allows).
type ContinuationSuspender struct{}

type parkedContinuation struct{ vm *engine.VM }

// Bytes is 0: a live continuation has no snapshot size.
func (parkedContinuation) Bytes() int64 { return 0 }
func (p parkedContinuation) Release()   { p.vm.Close(context.Background()) }

// Suspend keeps vm alive.
func (ContinuationSuspender) Suspend(vm *engine.VM, _ int64) (Parked, error) {
	return parkedContinuation{vm}, nil
}

// Resume hands the same VM back.
func (ContinuationSuspender) Resume(_ context.Context, _ *engine.Engine, p Parked) (*engine.VM, error) {
	return p.(parkedContinuation).vm, nil
}

// isContinuation reports whether p is a live continuation, not a snapshot.
func isContinuation(p Parked) bool {
	_, ok := p.(parkedContinuation)
	return ok
}

// Continuations reports whether the options select live continuations.
func (o Options) Continuations() bool {
	_, ok := o.Suspender.(ContinuationSuspender)
	return ok
}

// withoutSnapshotExecutor drops snapshot-executor from features when the
// options keep live continuations.
func (o Options) withoutSnapshotExecutor(features []string) []string {
	if !o.Continuations() {
		return features
	}
	return slices.DeleteFunc(slices.Clone(features), func(f string) bool { return f == "snapshot-executor" })
}

// snapshotEvent is the telemetry event for p (CM-TEL-03): a snapshot with
// its bytes, or a continuation without.
func snapshotEvent(event, runID string, p Parked) result.SnapshotEvent {
	if isContinuation(p) {
		return result.SnapshotEvent{Event: event, RunID: runID, Kind: result.KindContinuation}
	}
	return result.SnapshotEvent{Event: event, RunID: runID, Bytes: p.Bytes()}
}
