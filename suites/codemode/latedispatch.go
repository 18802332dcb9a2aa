package codemode

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var _ = Describe("codemode", "late nested calls", func() {
	It("CM-NEST-23", "no nested call reaches the harness after the answer that ended its cell, and none made after the cell's value was determined", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 3000}), Tools: tools.Standard()})
		// late is the tag of a call made only after the cell's outcome was
		// determined (a return or throw already ran): it must never reach the
		// harness, before or after the answer.
		cells := []struct{ name, code, late string }{
			{"queued, then a throw", `dispatch("echo", {tag: "queued-then-throw"}); throw new Error("boom");`, ""},
			{"made after the return", `Promise.resolve().then(() => dispatch("echo", {tag: "after-return"}).catch(() => {})); return "ok";`, "after-return"},
			{"made after a nested result", `dispatch("echo", {tag: "first"}).then(() => dispatch("echo", {tag: "second"})).catch(() => {}); return "ok";`, "second"},
			{"queued, then a rejection", `dispatch("echo", {tag: "queued-then-reject"}); await Promise.reject(new Error("no"));`, ""},
			{"made by a continuation of a call started before the return", `const p = dispatch("echo", {tag: "before"}); p.then(() => dispatch("echo", {tag: "late-then"}).catch(() => {})); return 1;`, "late-then"},
			{"made by a finally after the return", `dispatch("slow", {ms: 100, tag: "before"}).finally(() => dispatch("echo", {tag: "late-finally"}).catch(() => {})); return 1;`, "late-finally"},
			{"made by an async function still running after the return", `(async () => { await call("echo", {tag: "before"}); await call("echo", {tag: "late-async"}); })().catch(() => {}); return 1;`, "late-async"},
			{"made after an awaited value was returned", `const v = await call("echo", {tag: "before"}); Promise.resolve().then(() => dispatch("echo", {tag: "late-after-await"}).catch(() => {})); return 1;`, "late-after-await"},
		}
		tagged := func(tag string) func() []string {
			return func() []string {
				var seen []string
				for _, c := range r.Tools.Calls() {
					var in struct{ Tag string }
					if json.Unmarshal(c.Input, &in) == nil && in.Tag == tag {
						seen = append(seen, c.ToolCallID)
					}
				}
				return seen
			}
		}
		for _, c := range cells {
			res, _ := r.RunToCompletion(ctx, Guest(c.code))
			Expect(res.Status).NotTo(Equal(result.StatusWaiting), "%s: the cell must end\n%s", c.name, c.code)
			Consistently(r.InvokesAfterEnd).WithTimeout(time.Second).Should(BeEmpty(),
				"%s: a tool.invoke arrived after the answer that ended the cell (%s)\n%s", c.name, res.Status, c.code)
			if c.late != "" {
				Expect(res.Status).To(Equal(result.StatusCompleted), "%s: the cell returned a value\n%s\n%s", c.name, c.code, res)
				Expect(tagged(c.late)()).To(BeEmpty(),
					"%s: the call tagged %q was made after the cell's value was determined; it must never reach the harness, not even before the answer (the cell must not wait for it)\n%s", c.name, c.late, c.code)
			}
		}
		b := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxPendingToolCalls": 2}), Tools: tools.Standard()})
		over := 3 // one beyond maxPendingToolCalls (CM-LIM-05)
		if Features().Has("bridge-queue") {
			over = 2 + 128 + 1 // one beyond the queue (CM-NEST-05)
		}
		res, _ := b.RunToCompletion(ctx, Guest(fmt.Sprintf(`const ps = Array.from({length: %d}, (_, i) => dispatch("slow", {ms: 200, tag: String(i)})); return (await Promise.all(ps)).length;`, over)))
		// Which code the over-limit batch fails with is CM-LIM-05's or
		// CM-NEST-05's; here only that the cell failed and nothing of it is
		// dispatched afterwards.
		Expect(res).To(BeFailed(), "%d concurrent nested calls exceed what maxPendingToolCalls 2 allows: the cell must fail", over)
		Consistently(b.InvokesAfterEnd).WithTimeout(time.Second).Should(BeEmpty(), "a call of a batch that failed the cell arrived after the failed answer")
		// Under pending-call-limit (000) calls up to the limit may have been
		// sent before the batch failed, and how many is CM-LIM-05's; under
		// bridge-queue 001 admits no partial batch: "不会调度来自该同步前沿的新调用"
		// (no new calls from that synchronous frontier are dispatched).
		if Features().Has("bridge-queue") {
			Expect(b.Tools.Calls()).To(BeEmpty(), "a cell that fails on a batch of %d calls (more than maxPendingToolCalls 2 plus the 128 queued) must start none of them (001, bridge-queue); the harness received %d", over, len(b.Tools.Calls()))
		}
	})
})
