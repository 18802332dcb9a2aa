package codemode

import (
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
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

var _ = Describe("codemode", "snapshot telemetry", func() {
	It("CM-TEL-03", "telemetry reports snapshot lifecycle events: created, restored, expired and deleted", func(ctx SpecContext) {
		// Only the run e lets its snapshot expire: a busy machine must not expire the others.
		r := NewRun(ctx, RunOptions{CodeMode: roomy(nil), Tools: tools.Standard()})
		w := r.Exec(ctx, Guest(roomySlowCall))
		Expect(w).To(BeWaiting(), "the slow nested call must suspend the cell")
		Expect(snapshotEvents(w)).To(ContainElement(result.SnapshotCreated+" "+w.RunID), "the waiting result must report the snapshot it created: %s", w)
		res := r.Wait(ctx, w.RunID)
		Expect(snapshotEvents(res)).To(ContainElement(result.SnapshotRestored+" "+w.RunID), "the wait's result must report the snapshot it restored: %s", res)
		final, _ := r.Follow(ctx, res)
		Expect(final).To(BeCompleted(), "the resumed cell must complete")

		e := NewRun(ctx, RunOptions{CodeMode: roomy(map[string]any{"snapshotTtlSeconds": 1}), Tools: tools.Standard()})
		w = e.Exec(ctx, Guest(roomySlowCall))
		Expect(w).To(BeWaiting(), "the slow nested call must suspend the cell")
		time.Sleep(2500 * time.Millisecond) // the TTL (1 s) is the subject under test; a wait before it passes would resume the cell
		res = e.Wait(ctx, w.RunID)
		Expect(res).To(BeFailed(), "an expired snapshot was resumed")
		Expect(snapshotEvents(res)).To(ContainElement(result.SnapshotExpired+" "+w.RunID), "the run's next result after the TTL passed must report the expired snapshot: %s", res)

		w = r.Exec(ctx, Guest(roomySlowCall))
		Expect(w).To(BeWaiting(), "the slow nested call must suspend the cell")
		r.Abort(ctx)
		res = r.Exec(ctx, `return 1;`)
		Expect(res).To(BeFailed(), "an exec on an aborted run must fail")
		Expect(snapshotEvents(res)).To(ContainElement(result.SnapshotDeleted+" "+w.RunID), "the run's next result after run.abort must report the deleted snapshot: %s", res)
	})
})
