package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The bridge queue beyond CM-NEST-05/14 (feature bridge-queue, 001
// [嵌套工具执行]): guest timers take slots (CM-NEST-13), how a freed slot is
// refilled (CM-NEST-15) and what queueing never changes (CM-NEST-16). Order is judged from the spans the
// harness's recorded tools keep, never from sleeps.

// continuationSpin is how long the guest busies itself in the continuation
// of the call that frees the slot (CM-NEST-15).
const continuationSpin = 300 * time.Millisecond

// timerDelay is the guest timers' delay in the CM-NEST-13 specs.
const timerDelay = 300 * time.Millisecond

var _ = Describe("codemode", "the bridge queue", func() {
	It("CM-NEST-15", "the continuation of the call that frees a slot runs before a queued call is sent into it", func(ctx SpecContext) {
		rec := &tools.Recorder{}
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxPendingToolCalls": 1, "timeoutMs": 20000}),
			Tools: []tools.Tool{rec.Recorded("lookup", "")}})
		// a holds the one slot, b is queued behind it; a's continuation
		// keeps the guest busy for continuationSpin before it yields.
		res := r.Exec(ctx, Guest(fmt.Sprintf(`const spin = (ms) => { const end = Date.now() + ms; while (Date.now() < end) {} };
const a = dispatch("lookup", {tag: "a", ms: 20}).then((x) => { spin(%d); return callValue(id("lookup"), x).tag; });
const b = dispatch("lookup", {tag: "b", ms: 1}).then((x) => callValue(id("lookup"), x).tag);
return await Promise.all([a, b]);`, continuationSpin.Milliseconds())))
		Expect(res).To(CompleteWith([]string{"a", "b"}), "both calls must complete within the exec %s", EnvelopeNote)
		s := rec.ByTag()
		Expect(s).To(HaveKey("b"), "the queued call must reach the harness:%s", spansText(rec.Spans()))
		gap := s["b"].Start.Sub(s["a"].End)
		Expect(gap).To(BeNumerically(">=", continuationSpin),
			"b may be sent only after the guest ran a's continuation, which keeps it busy for %v after a's result arrives; b was sent %v after a ended, so the slot was refilled before the continuation ran:%s",
			continuationSpin, gap, spansText(rec.Spans()))
	})

	It("CM-NEST-15", "fast calls, queued ones included, complete within the same exec without a model round trip", func(ctx SpecContext) {
		rec := &tools.Recorder{}
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxPendingToolCalls": 2, "timeoutMs": 20000}),
			Tools: []tools.Tool{rec.Recorded("lookup", "")}})
		res := r.Exec(ctx, Guest(`const out = await Promise.all(Array.from({length: 30}, (_, i) => dispatch("lookup", {tag: "q" + i, ms: 5})));
return out.length;`))
		Expect(res).To(CompleteWith(30), "30 fast calls through 2 slots must drain inside the one exec: completed, not waiting for a wait round trip %s", EnvelopeNote)
		Expect(rec.Spans()).To(HaveLen(30), "each call must reach the harness once:%s", spansText(rec.Spans()))
		Expect(rec.MaxOverlap()).To(BeNumerically("<=", 2), "never more than maxPendingToolCalls in flight:%s", spansText(rec.Spans()))
	})

	It("CM-NEST-13", "a guest timer takes a bridge slot: with maxPendingToolCalls 1, a call made after setTimeout is sent only once the timer fired", func(ctx SpecContext) {
		rec := &tools.Recorder{}
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxPendingToolCalls": 1, "timeoutMs": 20000}),
			Tools: []tools.Tool{rec.Recorded("lookup", "")}})
		before := time.Now()
		res := r.Exec(ctx, Guest(fmt.Sprintf(`let fired = false;
setTimeout(() => { fired = true; }, %d);
const after = (await call("lookup", {tag: "after", ms: 1})).tag;
return [after, fired];`, timerDelay.Milliseconds())))
		Expect(res).To(CompleteWith([]any{"after", true}), "the timer must fire before the call that waited for its slot returns %s", EnvelopeNote)
		s := rec.ByTag()
		Expect(s["after"].Start.Sub(before)).To(BeNumerically(">=", timerDelay),
			"the timer holds the only slot for its %v delay, so the call made after it must not be sent earlier:%s", timerDelay, spansText(rec.Spans()))
	})

	It("CM-NEST-13", "a queued timer's delay is measured from when it gets a slot", func(ctx SpecContext) {
		rec := &tools.Recorder{}
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxPendingToolCalls": 1, "timeoutMs": 20000}),
			Tools: []tools.Tool{rec.Recorded("lookup", "")}})
		// a holds the only slot for 400 ms; the timer queues behind it and
		// its callback makes call t.
		res := r.Exec(ctx, Guest(fmt.Sprintf(`const a = dispatch("lookup", {tag: "a", ms: 400});
const t = new Promise((resolve) => setTimeout(() => resolve(dispatch("lookup", {tag: "t", ms: 1})), %d));
await a; await t;
return "done";`, timerDelay.Milliseconds())))
		Expect(res).To(CompleteWith("done"), "the cell must complete %s", EnvelopeNote)
		s := rec.ByTag()
		Expect(s).To(HaveKey("t"), "the timer's callback must have made its call:%s", spansText(rec.Spans()))
		Expect(s["t"].Start.Sub(s["a"].End)).To(BeNumerically(">=", timerDelay),
			"the timer got its slot when a ended, so its %v delay starts then; its callback's call came earlier:%s", timerDelay, spansText(rec.Spans()))
	})

	It("CM-NEST-13", "clearTimeout on a queued timer removes it: it never fires and never takes the slot", func(ctx SpecContext) {
		rec := &tools.Recorder{}
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxPendingToolCalls": 1, "timeoutMs": 20000}),
			Tools: []tools.Tool{rec.Recorded("lookup", "")}})
		res := r.Exec(ctx, Guest(`let fired = false;
const a = dispatch("lookup", {tag: "a", ms: 200});
const h = setTimeout(() => { fired = true; }, 5000);
clearTimeout(h);
const b = dispatch("lookup", {tag: "b", ms: 1});
await a; await b;
return fired;`))
		Expect(res).To(CompleteWith(false), "a cleared timer's callback must never run, and the cell must not wait for it %s", EnvelopeNote)
		s := rec.ByTag()
		Expect(s["b"].Start.Sub(s["a"].End)).To(BeNumerically("<", 5*time.Second),
			"the cleared timer must never take the slot: b waited for its 5 s delay after a ended:%s", spansText(rec.Spans()))
	})

	It("CM-NEST-16", "a queued call to a tool the policy denies still fails, catchably, and never reaches the tool", func(ctx SpecContext) {
		rec := &tools.Recorder{}
		secret := tools.Named(protocol.SourceOpenClaw, "core", "secret", "A tool the run's policy denies.")
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxPendingToolCalls": 1, "timeoutMs": 20000}),
			Tools: []tools.Tool{rec.Recorded("lookup", ""), secret}, Policy: &protocol.Policy{Deny: []string{"secret"}}})
		res := r.Exec(ctx, Guest(`const a = dispatch("lookup", {tag: "a", ms: 200});
const denied = (async () => tools.call("openclaw:core:secret", {}))().then(() => "called", () => "refused"); // the guessed id is the subject
return [await denied, callValue(id("lookup"), await a).tag];`))
		Expect(res).To(CompleteWith([]string{"refused", "a"}), "a call to a denied tool made while the slot is taken must reject catchably, and the cell go on %s", EnvelopeNote)
		Expect(r.Tools.CallsOf("secret")).To(BeEmpty(), "queueing must not bypass policy: the denied tool must never be invoked")
		// The harness refuses a tool.invoke for a denied tool, so the guest
		// sees a rejection either way: the target must not have sent one.
		Expect(r.RefusedInvokes()).To(BeEmpty(), "queueing must not bypass policy: the target must never send a tool.invoke for the denied tool (the harness refused it)")
	})

	It("CM-NEST-16", "a queued call is checked against the run's catalog when it is sent: after run.update restrictTo removed its tool it rejects as an unknown tool and is never sent", func(ctx SpecContext) {
		box := newMailbox() // resultsbinding.go: holds the one slot until the spec posts
		wipe := tools.Named(protocol.SourceOpenClaw, "core", "wipe", "A tool the restriction removes.")
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxPendingToolCalls": 1, "timeoutMs": 1000}),
			Tools: []tools.Tool{box.tool(), wipe, tools.Echo()}})
		code := Guest(`const held = dispatch("mailbox", {});
const wipes = [0, 1, 2].map((n) => dispatch("wipe", {n}).then(() => "called", () => "refused"));
await held;
return await Promise.all(wipes);`)
		w := r.Exec(ctx, code)
		Expect(w).To(BeWaiting(), "the cell must park in wait on the mailbox call, which holds the one slot while three wipe calls queue behind it (guest code:\n%s)", code)
		Expect(r.Tools.CallsOf("wipe")).To(BeEmpty(), "with maxPendingToolCalls 1 held by the mailbox call, no wipe call may have been sent yet")
		r.RestrictTo(ctx, "mailbox", "echo")
		box.post("released")
		res, _ := r.Follow(ctx, r.Wait(ctx, w.RunID))
		// A target may end a cell parked across the restriction; one that
		// resumes it must reject the queued calls in the guest.
		if res.Status != result.StatusFailed {
			Expect(res).To(CompleteWith([]string{"refused", "refused", "refused"}),
				"the wipe calls queued before run.update restrictTo removed wipe must reject catchably once the slot frees, and the cell complete (guest code:\n%s) %s", code, EnvelopeNote)
		}
		Expect(r.Tools.CallsOf("wipe")).To(BeEmpty(), "queueing must not bypass the restriction: no queued wipe call may reach the tool after run.update removed it")
		// The harness refuses a tool.invoke for a tool no longer in the
		// catalog, so the guest sees a rejection either way.
		Expect(r.RefusedInvokes()).To(BeEmpty(), "queueing must not bypass the restriction: the target must resolve a queued call in the run's current catalog when it sends it, never send a tool.invoke for the removed tool wipe (the harness refused it)")
	})

	It("CM-NEST-16", "queued calls are cancelled with their cell: after run.abort none of them is ever sent", func(ctx SpecContext) {
		rec := &tools.Recorder{}
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxPendingToolCalls": 1, "timeoutMs": 1000}),
			Tools: []tools.Tool{rec.Recorded("lookup", "")}})
		w := r.Exec(ctx, Guest(`const out = await Promise.all(["a", "b", "c"].map((tag, i) => dispatch("lookup", {tag, ms: i === 0 ? 3000 : 1})));
return out.length;`))
		Expect(w).To(BeWaiting(), "a 3000 ms call under timeoutMs 1000 must suspend the cell while b and c are queued behind it")
		r.Abort(ctx)
		Eventually(func() bool {
			s := rec.ByTag()["a"]
			return !s.End.IsZero()
		}).Should(BeTrue(), "the aborted cell's call in flight must end (cancelled):%s", spansText(rec.Spans()))
		Consistently(func() int { return len(rec.Spans()) }, "1s", "50ms").Should(Equal(1),
			"the queued calls b and c must be cancelled with their cell, never sent after run.abort:%s", spansText(rec.Spans()))
		Expect(r.Wait(ctx, w.RunID)).To(BeFailed(), "wait after run.abort must fail")
	})

	It("CM-NEST-16", "queueing extends no timeoutMs: a cell whose calls drain through the queue suspends at its timeoutMs, not after its last queued call", func(ctx SpecContext) {
		rec := &tools.Recorder{}
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxPendingToolCalls": 1, "timeoutMs": 2000}),
			Tools: []tools.Tool{rec.Recorded("lookup", "")}})
		// Ten 500 ms calls through one slot need 5 s; each alone is well
		// within the 2 s budget, so only the cell's own clock suspends it.
		res := r.Exec(ctx, Guest(`const out = await Promise.all(Array.from({length: 10}, (_, i) => dispatch("lookup", {tag: "t" + i, ms: 500})));
return out.length;`))
		Expect(res).To(BeWaiting(), "ten 500 ms calls behind one slot outlast timeoutMs 2000: the queue must not extend the cell's time budget, so the exec returns waiting")
		Expect(len(rec.Spans())).To(BeNumerically("<", 10), "when the exec returned, not every queued call may have been sent yet (5 s of calls, a 2 s budget):%s", spansText(rec.Spans()))
	})

	It("CM-NEST-16", "queueing raises no memory limit: inputs parked in the queue count against memoryLimitBytes, though the guest no longer holds them", func(ctx SpecContext) {
		// The snapshot bound is generous: each yield suspends the cell, and
		// its snapshot is judged by CM-LIM-02, not here.
		const memory, snapshot = 16 << 20, 48 << 20
		// A call to hold takes the one slot until the spec releases it; then
		// fronts of three calls queue behind it, each front ending in
		// yield_control. The inputs share one 1 MiB string, so the guest's
		// heap holds about 1 MiB while the queued inputs grow by 3 MiB of JSON
		// per front.
		cell := func(fronts int) string {
			return fmt.Sprintf(`const big = "x".repeat(1 << 20);
const held = dispatch("hold", {}).catch(() => "released");
for (let f = 0; f < %d; f++) {
  for (let i = 0; i < 3; i++) dispatch("lookup", {tag: "q" + f + "-" + i, ms: 1, big}).catch(() => {});
  await yield_control("front " + f);
}
await held;
return "all queued";`, fronts)
		}
		queue := func(fronts int) (Result, *tools.Recorder) {
			rec := &tools.Recorder{}
			release := make(chan struct{})
			var once sync.Once
			free := func() { once.Do(func() { close(release) }) }
			ginkgo.DeferCleanup(free)
			hold := tools.Core("hold", "Return once the harness releases it.", nil, func(ctx context.Context, _ json.RawMessage) (any, error) {
				select {
				case <-release:
					return "released", nil
				case <-ctx.Done():
					return nil, protocol.ToolError("hold: canceled", nil)
				}
			})
			r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxPendingToolCalls": 1, "memoryLimitBytes": memory, "maxSnapshotBytes": snapshot, "timeoutMs": 20000}),
				Tools: []tools.Tool{hold, rec.Recorded("lookup", "")}})
			res := r.Exec(ctx, Guest(cell(fronts)))
			for yields := 1; res.Status == result.StatusWaiting && res.Reason == result.ReasonYield && yields <= fronts; yields++ {
				if yields == fronts {
					free() // every front is queued: let the holding call end
				}
				res = r.Wait(ctx, res.RunID)
			}
			return res, rec
		}
		// The control: 6 MiB queued fits, so the guest's own memory use of
		// this cell is within the limit.
		small, rec := queue(2)
		Expect(small).To(CompleteWith("all queued"), "two fronts (6 MiB of queued inputs) under memoryLimitBytes %d must complete: the guest itself holds about 1 MiB %s", memory, EnvelopeNote)
		Expect(rec.Spans()).To(HaveLen(6), "the six queued calls must be sent once the holding call ended:%s", spansText(rec.Spans()))
		res, rec := queue(8)
		Expect(res).To(BeFailedWith(result.CodeMemoryLimitExceeded),
			"eight fronts park 24 MiB of inputs in the queue while the guest holds about 1 MiB: queued inputs count against memoryLimitBytes (%d bytes), so the cell must fail, not complete", memory)
		Expect(rec.Spans()).To(BeEmpty(), "with maxPendingToolCalls 1 held by the holding call, no queued call may be sent:%s", spansText(rec.Spans()))
	})
})
