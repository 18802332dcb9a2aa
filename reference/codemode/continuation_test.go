package codemode

import (
	"slices"
	"testing"

	"github.com/codemode-conformance/codemode/spec/result"
)

// A runtime with ContinuationSuspender keeps the waiting cell's VM and says
// so (protocol.md §8, §6): suspendedRuns and liveVMs count it, snapshots and
// snapshotBytes do not, its events are kind continuation without bytes, and
// it does not declare snapshot-executor.
func TestContinuationReportsWhatItHolds(t *testing.T) {
	eng := testEngine(t)
	opts := Options{Suspender: ContinuationSuspender{}, Admission: NewAdmission(Limits{})}
	rt := sessionRuntime(t, eng, echoInvoker{}, opts, `{"enabled":true,"timeoutMs":3000}`)
	if slices.Contains(opts.Features(), "snapshot-executor") || opts.HasFeature("snapshot-executor") {
		t.Fatalf("features %v: a continuation runtime must not declare snapshot-executor", opts.Features())
	}
	w := execIn(t, rt, `let n = 41; await yield_control("k"); return n + 1`)
	if w.Status != result.StatusWaiting {
		t.Fatalf("exec: %+v, want waiting", w)
	}
	if ev := w.Telemetry.SnapshotEvents; len(ev) != 1 || ev[0].Event != result.SnapshotCreated || ev[0].Kind != result.KindContinuation || ev[0].Bytes != 0 {
		t.Fatalf("waiting result's snapshot events %+v: want one created, kind continuation, no bytes", ev)
	}
	if s := rt.Stats(); s.SuspendedRuns != 1 || s.Snapshots != 0 || s.SnapshotBytes != 0 || s.LiveVMs != 1 {
		t.Fatalf("stats while waiting %+v: want suspendedRuns 1, liveVMs 1, snapshots and snapshotBytes 0", s)
	}
	r := waitIn(t, rt, w.RunID)
	if r.Status != result.StatusCompleted || string(r.Value) != "42" {
		t.Fatalf("wait: %+v, want completed 42 with the cell's state", r)
	}
	if ev := r.Telemetry.SnapshotEvents; len(ev) != 1 || ev[0].Event != result.SnapshotRestored || ev[0].Kind != result.KindContinuation {
		t.Fatalf("wait's snapshot events %+v: want one restored, kind continuation", ev)
	}
	if s := rt.Stats(); s.SuspendedRuns != 0 || s.LiveVMs != 0 {
		t.Fatalf("stats after wait %+v: want nothing held", s)
	}
}
