package codemode

import (
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// snapshotEvents lists a result's telemetry.snapshotEvents as "event runId".
func snapshotEvents(res Result) []string {
	out := []string{}
	if res.Telemetry == nil {
		return out
	}
	for _, e := range res.Telemetry.SnapshotEvents {
		out = append(out, e.Event+" "+e.RunID)
	}
	return out
}

// expectEventKinds checks that every snapshot event of res says truthfully
// what the target holds (protocol.md §6, §8): a snapshot executor reports
// snapshots (no kind, bytes > 0 on created and restored), any other target
// live continuations (kind "continuation", no bytes), never a snapshot that
// does not exist.
func expectEventKinds(res Result, snapshots bool) {
	ginkgo.GinkgoHelper()
	if res.Telemetry == nil {
		return
	}
	for _, e := range res.Telemetry.SnapshotEvents {
		if snapshots {
			Expect(e.Kind).To(BeEmpty(), "a snapshot executor's waiting cell is a snapshot: event %+v must not say kind %q (§6): %s", e, e.Kind, res)
			if e.Event == result.SnapshotCreated || e.Event == result.SnapshotRestored {
				Expect(e.Bytes).To(BeNumerically(">", 0), "a snapshot executor's %s event must carry the snapshot's bytes (§6): %s", e.Event, res)
			}
			continue
		}
		Expect(e.Kind).To(Equal(result.KindContinuation),
			"the target does not declare snapshot-executor, so a waiting cell holds no snapshot: event %+v must say kind %q, not report a snapshot that does not exist (§6, §8): %s", e, result.KindContinuation, res)
		Expect(e.Bytes).To(BeZero(), "a live continuation has no snapshot size: event %+v must carry no bytes (§6): %s", e, res)
	}
}

var _ = Describe("codemode", "snapshot telemetry", func() {
	It("CM-TEL-03", "telemetry reports the lifecycle events of a waiting cell's snapshot or continuation, truthfully marked: created, restored, expired and deleted", func(ctx SpecContext) {
		snapshots := Features().Has("snapshot-executor")
		// CM-TEL-03 is 000's word: under v2 a target without snapshots MAY
		// report the events (protocol.md §6), but those it reports must be
		// marked truthfully (expectEventKinds).
		required := snapshots || Profile() == "v1"
		reports := func(res Result, event, runID, what string) {
			ginkgo.GinkgoHelper()
			if required {
				Expect(snapshotEvents(res)).To(ContainElement(event+" "+runID), "%s: %s", what, res)
			}
		}
		// Only the run e lets its cell expire: a busy machine must not expire the others.
		r := NewRun(ctx, RunOptions{CodeMode: roomy(nil), Tools: tools.Standard()})
		w := r.Exec(ctx, Guest(roomySlowCall))
		// Suspending is CM-EXEC-17's to judge; here it is a precondition.
		Precondition("CM-EXEC-17").Expect(w).To(BeWaiting(), "the slow nested call must suspend the cell")
		reports(w, result.SnapshotCreated, w.RunID, "the waiting result must report the snapshot (or continuation) it created")
		expectEventKinds(w, snapshots)
		res := r.Wait(ctx, w.RunID)
		reports(res, result.SnapshotRestored, w.RunID, "the wait's result must report the snapshot (or continuation) it restored")
		expectEventKinds(res, snapshots)
		final, _ := r.Follow(ctx, res)
		Expect(final).To(BeCompleted(), "the resumed cell must complete")

		// snapshotTtlSeconds 4 outlasts the exec's 3000 ms budget and the
		// 3500 ms call: a target that waits the whole budget before it
		// suspends still suspends, and the call is answered, before the
		// call's deadline (§4).
		const ttl = 4 * time.Second
		e := NewRun(ctx, RunOptions{CodeMode: roomy(map[string]any{"snapshotTtlSeconds": 4}), Tools: tools.Standard()})
		w = e.Exec(ctx, Guest(roomySlowCall))
		suspended := time.Now()
		Precondition("CM-EXEC-17").Expect(w).To(BeWaiting(), "the slow nested call must suspend the cell")
		time.Sleep(time.Until(suspended.Add(ttl + 1500*time.Millisecond))) // the TTL is the subject under test; a wait before it passes would resume the cell
		res = e.Wait(ctx, w.RunID)
		Expect(res).To(BeFailed(), "an expired cell was resumed")
		reports(res, result.SnapshotExpired, w.RunID, "the run's next result after the TTL passed must report the expiry")
		expectEventKinds(res, snapshots)

		w = r.Exec(ctx, Guest(roomySlowCall))
		Precondition("CM-EXEC-17").Expect(w).To(BeWaiting(), "the slow nested call must suspend the cell")
		r.Abort(ctx)
		res = r.Exec(ctx, `return 1;`)
		Expect(res).To(BeFailed(), "an exec on an aborted run must fail")
		reports(res, result.SnapshotDeleted, w.RunID, "the run's next result after run.abort must report the deletion")
		expectEventKinds(res, snapshots)
	})
})
