package codemode

import (
	"fmt"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

// engineProbe is a guest expression naming the engine that evaluates it, as
// "<typeof Intl>/<typeof WebAssembly>": 001's two executors are node:vm
// (V8, which always has both) and QuickJS-WASI (which has neither). The
// specs only compare probes with each other, never with a literal, so they
// tell executors apart without assuming what either engine reports.
const engineProbe = `(typeof Intl + "/" + typeof WebAssembly)`

// probeTimeoutMs is the timeoutMs of the runs whose cells only probe the
// engine: the first cell of an executor may load its runtime (compiling
// QuickJS-WASI takes seconds on a loaded machine), and how long that takes
// is not what these specs judge.
const probeTimeoutMs = 20000

// executorRun prepares a run whose tools.codeMode is cfg with executor
// ("" leaves executor out: the target's default).
func executorRun(ctx SpecContext, executor string, cfg map[string]any) *Run {
	m := map[string]any{}
	for k, v := range Sorted(cfg) {
		m[k] = v
	}
	if executor != "" {
		m["executor"] = executor
	}
	r := NewRun(ctx, RunOptions{CodeMode: m, Tools: tools.Standard()})
	Expect(r.Prepared.CodeModeActive).To(BeTrue(), "tools.codeMode %v must activate code mode (executor %q is one of 001's two executors): %+v", m, executor, r.Prepared.Failure)
	return r
}

// engineOf runs a cell that returns engineProbe and gives its value.
func engineOf(ctx SpecContext, r *Run, executor string) string {
	res := r.Exec(ctx, Guest(`return `+engineProbe+`;`))
	Expect(res).To(BeCompleted(), "a trivial cell on executor %q must complete", executor)
	s, ok := res.ValueAny().(string)
	Expect(ok).To(BeTrue(), "the engine probe on executor %q returns a string: %s", executor, res)
	return s
}

var _ = Describe("codemode", "executors", func() {
	It("CM-CFG-09", "the default executor is node; quickjs is chosen by configuration and runs cells on another engine", func(ctx SpecContext) {
		// 001 [术语]: "内置Node； QuickJS 是一个捆绑插件"; [安全边界]: Node is the default.
		// Which executor ran a cell shows in its engine: node:vm is V8,
		// QuickJS-WASI is QuickJS. That selecting node never loads the WASM
		// runtime is not observable from outside and is not judged.
		probe := Enabled(map[string]any{"timeoutMs": probeTimeoutMs})
		node := engineOf(ctx, executorRun(ctx, "node", probe), "node")
		quickjs := engineOf(ctx, executorRun(ctx, "quickjs", probe), "quickjs")
		Expect(quickjs).NotTo(Equal(node), "executor \"quickjs\" chosen by configuration must run the cell on QuickJS, not on the Node executor's engine: both cells saw %q", node)
		def := engineOf(ctx, executorRun(ctx, "", probe), "(default)")
		Expect(def).To(Equal(node), "with no executor configured the cell must run on the default Node executor (engine %q), not on QuickJS (%q): it saw %q", node, quickjs, def)
	})

	It("CM-CFG-08", "a cell stays on its executor across wait, on either executor", func(ctx SpecContext) {
		// 001 [运行和快照生命周期]: "选定的执行器在单元的生命周期内保持固定".
		for _, executor := range []string{"node", "quickjs"} {
			// The engine of a fresh cell on this executor, from a run with
			// room for the runtime's first load; then the cell under test.
			fresh := engineOf(ctx, executorRun(ctx, executor, Enabled(map[string]any{"timeoutMs": probeTimeoutMs})), executor)
			r := executorRun(ctx, executor, roomy(nil))
			w := r.Exec(ctx, Guest(fmt.Sprintf(`const before = %s; const x = (await call("slow", {ms: %d})); return {before, after: %s, slept: x.slept};`, engineProbe, roomySlowMs, engineProbe)))
			// Suspending at the budget is CM-EXEC-17's to judge.
			Precondition("CM-EXEC-17").Expect(w).To(BeWaiting(), "executor %q: a cell whose %d ms nested call outlives timeoutMs 3000 must return waiting", executor, roomySlowMs)
			final, _ := r.Follow(ctx, w)
			Expect(final).To(CompleteWith(map[string]any{"before": fresh, "after": fresh, "slept": roomySlowMs}),
				"executor %q: the cell started on the engine a fresh cell of this executor sees (%q) and must be resumed by wait on the same one %s", executor, fresh, EnvelopeNote)
		}
	})

	It("CM-RUN-07", "a Node-executor cell waits as a live continuation: maxSnapshotBytes 1024 does not refuse it, and wait resumes its state", func(ctx SpecContext) {
		// 001 [运行和快照生命周期]: "Node 保留了一个实时工作线程，并且没有要测量的序列化快照";
		// [Node 运行时]: wait continues the context without replaying the source.
		// maxSnapshotBytes 1024 is below any VM's size, so a snapshot
		// executor would refuse this suspension (CM-RUN-04).
		r := NewRun(ctx, RunOptions{CodeMode: roomy(map[string]any{"maxSnapshotBytes": 1024}), Tools: tools.Standard()})
		w := r.Exec(ctx, holding(heldMiB))
		if w.Status != result.StatusFailed || w.Code == result.CodeTimeout {
			Precondition("CM-EXEC-17").Expect(w).To(BeWaiting(), "a cell whose %d ms nested call outlives timeoutMs 3000 must return waiting, not complete or fail with timeout", roomySlowMs)
		}
		Expect(w).To(BeWaiting(), "a Node-executor cell holding %d MiB keeps its live worker while it waits: maxSnapshotBytes 1024 must not refuse the suspension (there is no snapshot to measure)", heldMiB)
		final, _ := r.Follow(ctx, w)
		Expect(final).To(CompleteWith(heldResult(heldMiB)), "wait must continue the live cell with its %d MiB of state and the nested result %s", heldMiB, EnvelopeNote)
	})

	It("CM-RUN-07", "snapshotTtlSeconds still bounds a Node-executor cell's live continuation, with maxSnapshotBytes out of play", func(ctx SpecContext) {
		// 001 [运行和快照生命周期]: "挂起状态受上述每个进程上限和 snapshotTtlSeconds 的限制".
		// CM-RUN-03 judges expiry in general; here the same under
		// maxSnapshotBytes 1024, which a live continuation ignores.
		const ttl = 2 * time.Second
		short := NewRun(ctx, RunOptions{CodeMode: suspendable(map[string]any{"snapshotTtlSeconds": 2, "maxSnapshotBytes": 1024}), Tools: tools.Standard()})
		w := short.Exec(ctx, Guest(`const x = (await call("slow", {ms: 1500})); text("resumed"); return x.slept;`))
		suspended := time.Now()
		if w.Status != result.StatusFailed || w.Code == result.CodeTimeout {
			Precondition("CM-EXEC-17").Expect(w).To(BeWaiting(), "a cell awaiting a 1500 ms nested call under timeoutMs 1000 must suspend")
		}
		Expect(w).To(BeWaiting(), "a Node-executor cell awaiting a 1500 ms nested call must wait as a live continuation: maxSnapshotBytes 1024 must not refuse it")
		// The TTL is the subject: a wait before it passed would resume the cell.
		time.Sleep(time.Until(suspended.Add(ttl + 1500*time.Millisecond)))
		res := short.Wait(ctx, w.RunID)
		Expect(res).To(BeFailed(), "a live Node-executor cell whose snapshotTtlSeconds (2 s) passed was resumed")
		Expect(res.Output).NotTo(ContainElement(result.TextOutput("resumed")), "the expired cell ran on past its nested call: %s", res)
	})

	It("CM-RUN-08", "idle Node workers are bounded: at most 4 after a burst of successes, none kept from a failed or timed-out cell", func(ctx SpecContext) {
		// 001 [Node 运行时]. Worker counts are the target's word
		// (runtime.stats idleWorkers, spec/protocol.md §8); a target without
		// runtime.stats cannot be judged here (not drivable).
		SelfReported("idle Node workers after a burst of six successful cells and after a cell that timed out, as runtime.stats idleWorkers reports them")
		base := Stats(ctx)
		Expect(base.IdleWorkers).NotTo(BeNil(), "a Node-executor target reports idleWorkers in runtime.stats (spec/protocol.md §8): %+v", base)
		r := NewRun(ctx, RunOptions{CodeMode: roomy(nil), Tools: tools.Standard()})
		done := Concurrently(6, func(i int) Result { return r.Exec(ctx, Guest(fmt.Sprintf(`return %d;`, i))) })
		for i, res := range done {
			Expect(res).To(CompleteWith(i), "cell %d of the burst must complete", i)
		}
		after := Stats(ctx)
		Expect(after.IdleWorkers).NotTo(BeNil(), "idleWorkers after the burst: %+v", after)
		Expect(*after.IdleWorkers).To(BeNumerically("<=", 4), "after a burst of six successful cells at most 4 idle workers are kept: %+v", after)
		timedOut := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 200}), Tools: tools.Standard()})
		before := Stats(ctx)
		Expect(timedOut.Exec(ctx, Guest(`while (true) {}`))).To(BeFailedWith(result.CodeTimeout), "a cell that never ends fails with timeout")
		Eventually(func() int {
			s := Stats(ctx)
			if s.IdleWorkers == nil {
				return -1
			}
			return *s.IdleWorkers
		}).WithContext(ctx).WithTimeout(Timeouts.Call).Should(BeNumerically("<=", *before.IdleWorkers), "the worker of a timed-out cell is retired, never kept idle for reuse (idle workers before it: %d)", *before.IdleWorkers)
	})
})
