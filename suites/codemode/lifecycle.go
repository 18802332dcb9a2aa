package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// heldMiB is how much live state the big cell of the snapshot-size specs
// keeps: well above a fresh VM's size, well below the default
// maxSnapshotBytes (10 MiB) with the VM around it.
const heldMiB = 4

// holding is guest code whose cell keeps mib MiB of distinct live strings
// (64 KiB each) across a nested call that outlives the exec of a roomy run,
// then returns heldResult(mib).
func holding(mib int) string {
	return Guest(fmt.Sprintf(`const keep = []; for (let i = 0; i < %d; i++) keep.push(String(i).padStart(8, "0").repeat(8192));
		const x = (await call("slow", {ms: %d})); return keep.length + " strings, slept " + x.slept;`, mib*16, roomySlowMs))
}

func heldResult(mib int) string { return fmt.Sprintf("%d strings, slept %d", mib*16, roomySlowMs) }

var _ = Describe("codemode", "run state and snapshots", func() {
	It("CM-RUN-01", "a waiting run holds a snapshot, not a live VM, and wait restores it into a fresh VM", func(ctx SpecContext) {
		// No behaviour shows from outside that a waiting cell holds no live VM
		// (the size specs below show that a snapshot holds its state).
		SelfReported("liveVMs = 0 and snapshots = 1 while the cell waits, as runtime.stats reports them")
		base := Stats(ctx)
		r := NewRun(ctx, RunOptions{CodeMode: roomy(nil), Tools: tools.Standard()})
		w := r.Exec(ctx, Guest(fmt.Sprintf(`const secret = "kept-in-memory"; const x = (await call("slow", {ms: %d, tag: "t"})); return secret + ":" + x.tag;`, roomySlowMs)))
		Expect(w).To(BeWaiting(), "a cell awaiting a %d ms nested call must suspend under timeoutMs 3000", roomySlowMs)
		Expect(base.LiveVMs).To(BeZero(), "a VM was still live before this spec started")
		Expect(base.Snapshots).To(BeZero(), "a snapshot was still stored before this spec started")
		s := Stats(ctx)
		Expect(s.LiveVMs).To(BeZero(), "a live VM is kept while the run is waiting")
		Expect(s.Snapshots).To(Equal(1), "exactly one snapshot must be stored while waiting")
		Expect(s.SuspendedRuns).To(Equal(1), "the waiting run must count as exactly one suspended run (stats %+v)", s)
		res, _ := r.Follow(ctx, w)
		Expect(res).To(CompleteWith("kept-in-memory:t"), "wait must restore the cell into a fresh VM holding its local state and give it the nested result")
		s = Stats(ctx)
		Expect(s.Snapshots).To(BeZero(), "nothing may stay stored after wait completed")
		Expect(s.SuspendedRuns).To(BeZero(), "no run may stay suspended after wait completed (stats %+v)", s)
		Expect(s.LiveVMs).To(BeZero(), "no VM may stay live after wait completed (stats %+v)", s)
	})

	It("CM-RUN-01", "the snapshot holds the waiting cell's state: its size grows with the live objects the cell keeps", func(ctx SpecContext) {
		// Only the resumed state is seen from outside; that the stored bytes
		// are a snapshot (not a live VM's heap) is the target's word.
		SelfReported(fmt.Sprintf("snapshotBytes grows by at least %d MiB between a waiting cell holding nothing and one holding %d MiB, as runtime.stats reports it", heldMiB-1, heldMiB))
		base := Stats(ctx)
		r := NewRun(ctx, RunOptions{CodeMode: roomy(nil), Tools: tools.Standard()})
		small := r.Exec(ctx, holding(0))
		Expect(small).To(BeWaiting(), "a cell holding nothing must suspend")
		s0 := Stats(ctx).SnapshotBytes - base.SnapshotBytes
		big := r.Exec(ctx, holding(heldMiB))
		Expect(big).To(BeWaiting(), "a cell holding %d MiB of strings must suspend under the default maxSnapshotBytes", heldMiB)
		s1 := Stats(ctx).SnapshotBytes - base.SnapshotBytes - s0
		Expect(s1-s0).To(BeNumerically(">=", int64(heldMiB-1)<<20),
			"a snapshot serialises the VM: one holding %d MiB more live strings must be about that much bigger (snapshotBytes %d for the empty cell, %d for the full one)",
			heldMiB, s0, s1)
		for mib, w := range Sorted(map[int]Result{0: small, heldMiB: big}) {
			final, _ := r.Follow(ctx, w)
			Expect(final).To(CompleteWith(heldResult(mib)), "the cell holding %d MiB resumes with its state", mib)
		}
	})

	It("CM-RUN-02", "a waiting cell's snapshot or continuation is counted while it waits and deleted on failure, expiry, abort and run end", func(ctx SpecContext) {
		// Deletion is seen only through runtime.stats (a deleted snapshot
		// and an unreachable one behave alike: wait fails, CM-EXEC-09). The
		// counts must first show the waiting cell (protocol.md §8), so a
		// target that always reports 0 cannot pass by showing nothing.
		snapshots := Features().Has("snapshot-executor")
		SelfReported("suspendedRuns (and snapshots, for a snapshot executor) +1 while a cell waits, then back to the baseline after failure, expiry, abort and run end, with liveVMs back too, as runtime.stats reports them")
		base := Stats(ctx)
		// held checks that exactly one waiting cell above the baseline is
		// counted, as protocol.md §8 says for either kind of target.
		held := func(when string) {
			ginkgo.GinkgoHelper()
			s := Stats(ctx)
			Expect(s.SuspendedRuns).To(Equal(base.SuspendedRuns+1), "%s: a waiting cell must count as exactly one suspended run above the baseline (§8; stats %+v, baseline %+v)", when, s, base)
			if snapshots {
				Expect(s.Snapshots).To(Equal(base.Snapshots+1), "%s: a snapshot executor's waiting cell must hold exactly one snapshot above the baseline (stats %+v)", when, s)
			}
		}
		// gone checks that nothing of the cell is counted any more.
		gone := func(g Gomega, when string) {
			s := Stats(ctx)
			g.Expect(s.SuspendedRuns).To(Equal(base.SuspendedRuns), "%s: the waiting cell still counts as a suspended run (stats %+v)", when, s)
			g.Expect(s.Snapshots).To(Equal(base.Snapshots), "%s: snapshot kept (stats %+v)", when, s)
			g.Expect(s.LiveVMs).To(Equal(base.LiveVMs), "%s: a VM of the cell is still live (stats %+v)", when, s)
		}
		// snapshotTtlSeconds 2 outlasts the exec's 1000 ms budget, so a
		// target that waits the whole budget before it suspends still
		// suspends before the nested call's deadline (§4).
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(map[string]any{"snapshotTtlSeconds": 2}), Tools: tools.Standard()})
		w := r.Exec(ctx, Guest(`await call("slow", {ms: 1500}); throw new Error("after restore");`))
		// Suspending is CM-EXEC-17's to judge; here it is a precondition.
		Precondition("CM-EXEC-17").Expect(w).To(BeWaiting(), "a cell awaiting a 1500 ms nested call must suspend before it throws")
		held("waiting before it fails")
		res, _ := r.Follow(ctx, w)
		Expect(res).To(BeFailed(), "the restored cell throws \"after restore\": its run must end failed")
		gone(Default, "failed")

		w = r.Exec(ctx, Guest(`await call("slow", {ms: 1500}); return 1;`))
		Precondition("CM-EXEC-17").Expect(w).To(BeWaiting(), "a cell awaiting a 1500 ms nested call must suspend, so it can expire")
		held("waiting before it expires")
		Eventually(func(g Gomega) { gone(g, "expired") }).
			WithTimeout(10*time.Second).WithPolling(200*time.Millisecond).Should(Succeed(), "expired: the cell is still counted past snapshotTtlSeconds (2 s)")

		// waitingRun prepares a run holding one waiting cell.
		waitingRun := func(when string) *Run {
			run := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: tools.Standard()})
			Precondition("CM-EXEC-17").Expect(run.Exec(ctx, Guest(`await call("slow", {ms: 1500}); return 1;`))).To(BeWaiting(), "a cell awaiting a 1500 ms nested call must suspend")
			held(when)
			return run
		}
		waitingRun("waiting before run.abort").Abort(ctx)
		gone(Default, "aborted")
		waitingRun("waiting before run.end").End(ctx)
		gone(Default, "run ended")
	})

	It("CM-RUN-04", "a VM larger than maxSnapshotBytes is refused before suspension with snapshot_limit_exceeded", func(ctx SpecContext) {
		base := Stats(ctx)
		r := NewRun(ctx, RunOptions{CodeMode: roomy(map[string]any{"maxSnapshotBytes": 1024}), Tools: tools.Standard()})
		res, _ := r.RunToCompletion(ctx, Guest(fmt.Sprintf(`const x = (await call("slow", {ms: %d})); return x.slept;`, roomySlowMs)))
		Expect(res).To(BeFailedWith(result.CodeSnapshotLimitExceeded), "a VM over maxSnapshotBytes 1024 must be refused before suspension with snapshot_limit_exceeded")
		Expect(Stats(ctx).Snapshots).To(Equal(base.Snapshots), "a refused suspension leaves no snapshot")
	})

	It("CM-EXEC-08", "wait resumes a cell holding megabytes of state with that state intact (a snapshot executor: from a snapshot at least that big)", func(ctx SpecContext) {
		// The intact state after wait is the behaviour, for every target.
		// Only a snapshot executor has a snapshot whose size can be asked
		// (a live continuation or a Node executor's worker has none, §8):
		// that part is the target's word, and only where it has stats.
		snapshots := Features().Has("snapshot-executor") && Drivable(protocol.SurfaceStats)
		if snapshots {
			SelfReported(fmt.Sprintf("snapshotBytes grows by at least %d MiB while a cell holding %d MiB waits, as runtime.stats reports it", heldMiB, heldMiB))
		}
		base := protocol.Stats{}
		if snapshots {
			base = Stats(ctx)
		}
		// A roomy budget: building and hashing megabytes can outlast 1 s on a
		// loaded machine, a guest-computation timeout that is no one's fault.
		r := NewRun(ctx, RunOptions{CodeMode: roomy(nil), Tools: tools.Standard()})
		w := r.Exec(ctx, Guest(fmt.Sprintf(`const keep = []; for (let i = 0; i < %d; i++) keep.push(String(i).padStart(8, "0").repeat(8192));
			const sum = () => { let h = 0; for (const s of keep) for (let j = 0; j < s.length; j += 509) h = (h * 31 + s.charCodeAt(j) + s.length) | 0; return h; };
			const before = sum(); const x = (await call("slow", {ms: %d}));
			return {strings: keep.length, same: before === sum(), slept: x.slept};`, heldMiB*16, roomySlowMs)))
		// Suspending at the budget is CM-EXEC-17's to judge: a cell that
		// completes or fails with timeout although its nested call is
		// pending is blocked by it. Any other failure (a limit code such as
		// snapshot_limit_exceeded or memory_limit_exceeded on megabytes of
		// state, a crash) is this requirement's own: it must resume a cell
		// that holds them, and CM-EXEC-17's small cells do not show it.
		if w.Status != result.StatusFailed || w.Code == result.CodeTimeout {
			Precondition("CM-EXEC-17").Expect(w).To(BeWaiting(), "a cell holding %d MiB whose %d ms nested call outlives timeoutMs 3000 must return waiting, not complete or fail with timeout", heldMiB, roomySlowMs)
		}
		Expect(w).To(BeWaiting(), "a cell holding %d MiB across a %d ms nested call must suspend so that wait can resume it (under the default maxSnapshotBytes 10 MiB and memoryLimitBytes 64 MiB), not fail", heldMiB, roomySlowMs)
		if snapshots {
			size := Stats(ctx).SnapshotBytes - base.SnapshotBytes
			Expect(size).To(BeNumerically(">=", int64(heldMiB)<<20),
				"the waiting cell holds %d MiB of live strings: a snapshot of its VM cannot be smaller (snapshotBytes grew by %d)", heldMiB, size)
		}
		final, _ := r.Follow(ctx, w)
		Expect(final).To(CompleteWith(map[string]any{"strings": heldMiB * 16, "same": true, "slept": roomySlowMs}),
			"the restored VM must hold the same %d MiB of strings it held before suspending, and receive the nested result %s", heldMiB, EnvelopeNote)
	})

	It("CM-RUN-04", "maxSnapshotBytes is judged on the VM's size: between a small and a large cell, only the large one is refused", func(ctx SpecContext) {
		// Which cell is refused is seen from outside; the limit between them
		// is set from a snapshot size only the target reports.
		SelfReported("the snapshotBytes of a waiting cell holding nothing, as runtime.stats reports it, sets maxSnapshotBytes; snapshots back to the baseline after the refusal, as runtime.stats reports them")
		base := Stats(ctx)
		probe := NewRun(ctx, RunOptions{CodeMode: roomy(nil), Tools: tools.Standard()})
		Expect(probe.Exec(ctx, holding(0))).To(BeWaiting(), "a probe cell holding nothing must suspend, so its snapshot size can be measured")
		small := Stats(ctx).SnapshotBytes - base.SnapshotBytes
		probe.Abort(ctx)
		limit := small + (heldMiB/2)<<20
		r := NewRun(ctx, RunOptions{CodeMode: roomy(map[string]any{"maxSnapshotBytes": limit}), Tools: tools.Standard()})
		res, _ := r.RunToCompletion(ctx, holding(0))
		Expect(res).To(CompleteWith(heldResult(0)), "a cell whose snapshot (%d bytes) fits maxSnapshotBytes %d must suspend and resume %s", small, limit, EnvelopeNote)
		res, _ = r.RunToCompletion(ctx, holding(heldMiB))
		Expect(res).To(BeFailedWith(result.CodeSnapshotLimitExceeded),
			"a cell holding %d MiB more live strings than one whose snapshot was %d bytes cannot fit maxSnapshotBytes %d: it must be refused before suspension", heldMiB, small, limit)
		Expect(Stats(ctx).Snapshots).To(Equal(base.Snapshots), "a refused suspension leaves no snapshot")
	})

	It("CM-RUN-03", "a waiting cell older than snapshotTtlSeconds cannot be resumed", func(ctx SpecContext) {
		// Judged through wait (issue 24): after the TTL the cell is not
		// resumed. runtime.stats, where the target has it, corroborates.
		// snapshotTtlSeconds 2 outlasts the exec's 1000 ms budget, so the
		// cell suspends before its nested call's deadline (§4).
		const ttl = 2 * time.Second
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(map[string]any{"snapshotTtlSeconds": 2}), Tools: tools.Standard()})
		w := r.Exec(ctx, Guest(`const x = (await call("slow", {ms: 1500})); text("resumed"); return x.slept;`))
		suspended := time.Now()
		// Suspending is CM-EXEC-17's to judge; here it is a precondition.
		Precondition("CM-EXEC-17").Expect(w).To(BeWaiting(), "a cell awaiting a 1500 ms nested call must suspend")
		// The TTL is the subject under test: a wait before it passed would
		// resume the cell. It counts from the suspension, which came before
		// the waiting result.
		time.Sleep(time.Until(suspended.Add(ttl + 1500*time.Millisecond)))
		if Drivable(protocol.SurfaceStats) {
			s := Stats(ctx)
			Expect(s.SuspendedRuns).To(BeZero(), "corroboration: runtime.stats still counts a suspended cell %s after its snapshotTtlSeconds passed (stats %+v)", ttl+1500*time.Millisecond, s)
		}
		res := r.Wait(ctx, w.RunID)
		Expect(res).To(BeFailed(), "a cell whose snapshotTtlSeconds (2 s) passed was resumed")
		Expect(res.Output).NotTo(ContainElement(result.TextOutput("resumed")), "the expired cell ran on past its nested call: %s", res)
		// Control: within the TTL the same cell resumes.
		long := NewRun(ctx, RunOptions{CodeMode: suspendable(map[string]any{"snapshotTtlSeconds": 60}), Tools: tools.Standard()})
		res, _ = long.RunToCompletion(ctx, Guest(`const x = (await call("slow", {ms: 1500})); return x.slept;`))
		Expect(res).To(CompleteWith(1500), "control: within snapshotTtlSeconds 60 the same cell must resume and return the nested result %s", EnvelopeNote)
	})

	It("CM-EXEC-11", "two concurrent waits for the same runId: at most one resumes, the other fails", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: tools.Standard()})
		for round := 0; round < 3; round++ {
			w := r.Exec(ctx, Guest(`const x = (await call("slow", {ms: 1300})); text("resumed once"); return x.slept;`))
			Expect(w).To(BeWaiting(), "round %d: a cell awaiting a 1300 ms nested call must suspend", round)
			// The waits are sent once the call returned: a wait that resumes
			// the cell then runs it to its end, so the two overlap however
			// early the target suspends (a target that suspends at once,
			// §10, would otherwise answer the first before the second came).
			Eventually(r.Tools.Finished).WithTimeout(10*time.Second).Should(Equal(round+1), "round %d: the 1300 ms nested call must return", round)
			results := Concurrently(2, func(int) Result { return r.Wait(ctx, w.RunID) })
			failed, resumedOutput := 0, 0
			for _, res := range results {
				// Any refusal counts as "the other fails". That it is a failed
				// result of the union is CM-EXEC-05's: Wait blocks the spec by
				// it on a result outside the union (framework.UnionOwner).
				if res.Status != result.StatusCompleted && res.Status != result.StatusWaiting && !strings.Contains(string(res.Raw), "resumed once") {
					failed++
				}
				for _, o := range res.Output {
					if o.Text != nil && *o.Text == "resumed once" {
						resumedOutput++
					}
				}
			}
			Expect(failed).To(BeNumerically(">=", 1), "round %d: both concurrent waits went on: %s / %s", round, results[0].Raw, results[1].Raw)
			Expect(resumedOutput).To(BeNumerically("<=", 1), "round %d: the cell ran twice", round)
			// Whichever wait won, the cell finishes exactly once.
			for _, res := range results {
				if res.Status == result.StatusWaiting {
					final, _ := r.Follow(ctx, res)
					Expect(final).To(CompleteWith(1300), "round %d: the wait that won must carry the cell to completion with the nested result %s", round, EnvelopeNote)
				}
			}
		}
	})

	It("CM-RUN-05", "at most 64 suspended runs per process; one more suspension fails with too many suspended code mode runs", func(ctx SpecContext) {
		// Judged through behaviour (issue 24): 64 cells suspend, the 65th
		// fails with the text. runtime.stats, where the target has it, gives
		// the places already taken and corroborates the count.
		//
		// The spec starts from a state it controls (audit 2026-12-02): a
		// restart, as CM-RUN-06's (spec/protocol.md §1: a new process, or
		// for a tcp: target a new session, which suspended runs MUST NOT
		// carry over to). Cells an earlier spec left suspended past its
		// run.end (a CM-RUN-02 fault) so cannot take places here, and a
		// refusal before the 64th suspension is the limit's own.
		RestartTarget()
		stats := Drivable(protocol.SurfaceStats)
		free := 64
		base := protocol.Stats{}
		if stats {
			base = Stats(ctx)
			Precondition("CM-RUN-06").Expect(base.SuspendedRuns).To(BeNumerically("<", 64), "right after a restart the target already holds %d suspended runs (runtime.stats): suspended runs must not survive a restart, and no place is left to judge the limit by", base.SuspendedRuns)
			free = 64 - base.SuspendedRuns
		}
		// 64 cells start at once: a generous timeoutMs leaves room for a busy
		// machine. Each is suspended by a call of hold, which the harness
		// answers only when the spec releases it: the spec then waits every
		// cell to completion, so it leaves no suspended run behind, on any
		// target, whatever run.end or run.abort do with suspended cells (a
		// target that keeps them would fail every later suspending spec
		// with "too many suspended code mode runs"; what run.end and
		// run.abort free is not this requirement's subject).
		var left heldCells
		held := left.hold()
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(map[string]any{"timeoutMs": 5000}), Tools: append(tools.Standard(), held.tool())})
		// Registered after NewRun's run.end, so it runs before it.
		ginkgo.DeferCleanup(func(ctx ginkgo.SpecContext) { left.complete(ctx, true) })
		track := func(res Result) Result { left.track(r, res); return res }
		const cell = `await call("hold", {}); return "released";`
		results := Concurrently(free, func(int) Result { return track(r.Exec(ctx, Guest(cell))) })
		for i, res := range results {
			Expect(res).To(BeWaiting(), "suspension %d of %d must succeed", i+1, free)
		}
		if stats {
			Expect(Stats(ctx).SuspendedRuns).To(Equal(64), "corroboration: runtime.stats must count all %d suspensions, reaching the limit of 64", free)
		}
		over := track(r.Exec(ctx, Guest(cell)))
		Expect(over).To(BeFailed(), "the 65th suspension must fail")
		Expect(over.Error).To(ContainSubstring("too many suspended code mode runs"), "the 65th suspension must fail with the error CM-RUN-05 names")
		if stats {
			Expect(Stats(ctx).SuspendedRuns).To(Equal(64), "corroboration: the refused 65th suspension must leave runtime.stats's count at 64")
		}
		// Behaviour: completed cells are no longer suspended, so their places
		// are free again and a new cell suspends.
		left.complete(ctx, false)
		again := NewRun(ctx, RunOptions{CodeMode: suspendable(map[string]any{"timeoutMs": 5000}), Tools: []tools.Tool{left.hold().tool(), tools.Echo()}})
		Eventually(func() Result {
			res := again.Exec(ctx, Guest(`await call("hold", {}); return "again";`))
			left.track(again, res)
			return res
		}).
			WithTimeout(20*time.Second).WithPolling(500*time.Millisecond).Should(BeWaiting(), "after the 64 suspended cells completed a new cell must suspend")
		if stats {
			Eventually(func() int { return Stats(ctx).SuspendedRuns }).Should(Equal(base.SuspendedRuns+1), "corroboration: completed cells must leave runtime.stats's count (the new waiting cell left)")
		}
	}, Serial)

	It("CM-RUN-06", "suspended runs do not survive a runtime restart", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: tools.Standard()})
		w := r.Exec(ctx, Guest(`const x = (await call("slow", {ms: 1500})); text("resumed after restart"); return x.slept;`))
		Expect(w).To(BeWaiting(), "a cell awaiting a 1500 ms nested call must suspend before the restart")
		RestartTarget()
		again := NewRun(ctx, RunOptions{ID: r.ID, CodeMode: suspendable(nil), Tools: tools.Standard(), Context: r.Params.RunContext})
		res := again.Wait(ctx, w.RunID)
		// Any refusal shows the run did not survive; its shape is CM-EXEC-05's (framework.UnionOwner).
		Expect(res).To(BeRefused(), "a suspended run survived the restart")
		Expect(res.Output).To(BeEmpty(), "the cell resumed after the restart and wrote output")
		Expect(string(res.Raw)).NotTo(ContainSubstring("resumed after restart"), "the cell resumed after the restart: %s", res)
		if Drivable(protocol.SurfaceStats) { // the wait's refusal is the requirement; the count only confirms it
			Expect(Stats(ctx).SuspendedRuns).To(BeZero(), "the restarted runtime holds suspended runs")
		}
		Expect(again.Exec(ctx, `return "fresh";`)).To(CompleteWith("fresh"), "the restarted runtime serves new cells")
	})
})

// heldCells are the cells a spec suspended at calls of a hold tool, which
// the harness answers only once the spec releases it (CM-RUN-05): complete
// releases every hold and waits each cell to its end, so the spec leaves no
// suspended run behind on any target.
type heldCells struct {
	mu    sync.Mutex
	holds []*hold
	cells []heldCell
}

type heldCell struct {
	run   *Run
	runID string
}

// hold is a tool whose calls are answered ({released: true}) once release
// was called, or fail when their call is canceled.
type hold struct {
	once sync.Once
	done chan struct{}
}

func (h *hold) release() { h.once.Do(func() { close(h.done) }) }

func (h *hold) tool() tools.Tool {
	return tools.Core("hold", "Return once the harness releases the call.", json.RawMessage(`{"type":"object","properties":{}}`),
		func(ctx context.Context, _ json.RawMessage) (any, error) {
			select {
			case <-h.done:
				return map[string]any{"released": true}, nil
			case <-ctx.Done():
				return nil, protocol.ToolError("hold: canceled", nil)
			}
		})
}

// hold returns a new hold tool that complete releases.
func (l *heldCells) hold() *hold {
	h := &hold{done: make(chan struct{})}
	l.mu.Lock()
	l.holds = append(l.holds, h)
	l.mu.Unlock()
	return h
}

// track records res's cell when it is waiting.
func (l *heldCells) track(r *Run, res Result) {
	if res.Status == result.StatusWaiting && res.RunID != "" {
		l.mu.Lock()
		l.cells = append(l.cells, heldCell{r, res.RunID})
		l.mu.Unlock()
	}
}

// complete releases every hold and follows each tracked cell with wait until
// it is no longer waiting (Concurrently, as the cells were started). In a
// cleanup (quiet) a failure there does not fail the spec: its verdict is in.
func (l *heldCells) complete(ctx context.Context, quiet bool) {
	ginkgo.GinkgoHelper()
	l.mu.Lock()
	holds, cells := l.holds, l.cells
	l.cells = nil
	l.mu.Unlock()
	for _, h := range holds {
		h.release()
	}
	follow := func() {
		Concurrently(len(cells), func(i int) Result {
			c := cells[i]
			res, _ := c.run.Follow(ctx, Result{Result: result.Result{Status: result.StatusWaiting, RunID: c.runID}})
			return res
		})
	}
	if quiet {
		InterceptGomegaFailures(follow)
		return
	}
	follow()
}
