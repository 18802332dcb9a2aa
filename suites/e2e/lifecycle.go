package e2e

import (
	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var _ = Describe("e2e", "run state and snapshots", func() {
	It("CM-RUN-01", "a waiting run holds a snapshot, not a live VM, and wait restores it into a fresh VM", func(ctx SpecContext) {
		base := Stats(ctx)
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: tools.Standard()})
		w := r.Exec(ctx, Guest(`const secret = "kept-in-memory"; const x = await tools.call(id("slow"), {ms: 1500, tag: "t"}); return secret + ":" + x.tag;`))
		Expect(w).To(BeWaiting())
		Expect(base.LiveVMs).To(BeZero(), "a VM was still live before this spec started")
		Expect(base.Snapshots).To(BeZero(), "a snapshot was still stored before this spec started")
		s := Stats(ctx)
		Expect(s.LiveVMs).To(BeZero(), "a live VM is kept while the run is waiting")
		Expect(s.Snapshots).To(Equal(1), "exactly one snapshot must be stored while waiting")
		Expect(s.SuspendedRuns).To(Equal(1))
		res := w
		for i := 0; res.Status == result.StatusWaiting && i < 10; i++ {
			res = r.Wait(ctx, res.RunID)
		}
		Expect(res).To(CompleteWith("kept-in-memory:t"))
		s = Stats(ctx)
		Expect(s.Snapshots).To(BeZero(), "nothing may stay stored after wait completed")
		Expect(s.SuspendedRuns).To(BeZero())
		Expect(s.LiveVMs).To(BeZero())
	})

	It("CM-RUN-02", "the snapshot is deleted on failure, abort and expiry", func(ctx SpecContext) {
		base := Stats(ctx)
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(map[string]any{"snapshotTtlSeconds": 1}), Tools: tools.Standard()})
		w := r.Exec(ctx, Guest(`await tools.call(id("slow"), {ms: 1500}); throw new Error("after restore");`))
		Expect(w).To(BeWaiting())
		res := w
		for i := 0; res.Status == result.StatusWaiting && i < 10; i++ {
			res = r.Wait(ctx, res.RunID)
		}
		Expect(res).To(BeFailed())
		Expect(Stats(ctx).Snapshots).To(Equal(base.Snapshots), "failed: snapshot kept")

		w = r.Exec(ctx, Guest(`await tools.call(id("slow"), {ms: 1500}); return 1;`))
		Expect(w).To(BeWaiting())
		Eventually(func(g Gomega) { g.Expect(Stats(ctx).Snapshots).To(Equal(base.Snapshots)) }).
			WithTimeout(10*1e9).WithPolling(200*1e6).Should(Succeed(), "expired: snapshot kept past snapshotTtlSeconds")

		a := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: tools.Standard()})
		w = a.Exec(ctx, Guest(`await tools.call(id("slow"), {ms: 1500}); return 1;`))
		Expect(w).To(BeWaiting())
		Expect(Stats(ctx).Snapshots).To(Equal(base.Snapshots + 1))
		a.Abort(ctx)
		Expect(Stats(ctx).Snapshots).To(Equal(base.Snapshots), "aborted: snapshot kept")
		Expect(Stats(ctx).LiveVMs).To(Equal(base.LiveVMs))
	})

	It("CM-RUN-04", "a VM larger than maxSnapshotBytes is refused before suspension with snapshot_limit_exceeded", func(ctx SpecContext) {
		base := Stats(ctx)
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(map[string]any{"maxSnapshotBytes": 1024}), Tools: tools.Standard()})
		res, _ := r.RunToCompletion(ctx, Guest(`const x = await tools.call(id("slow"), {ms: 1500}); return x.slept;`))
		Expect(res).To(BeFailedWith(result.CodeSnapshotLimitExceeded))
		Expect(Stats(ctx).Snapshots).To(Equal(base.Snapshots))
	})
})
