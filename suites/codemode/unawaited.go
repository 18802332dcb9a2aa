package codemode

import (
	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var _ = Describe("codemode", "unawaited nested calls", func() {
	It("CM-NEST-22", "the failure of a nested call the guest never handles fails the cell with nested_tool_failed instead of vanishing", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 3000}), Tools: tools.Standard()})
		res, _ := r.RunToCompletion(ctx, Guest(`dispatch("fail", {message: "lost-failure-7"}); dispatch("echo", {n: 1}); return "ok";`))
		Expect(res).To(BeFailedWith(result.CodeNestedToolFailed), "an unawaited nested call failed and nothing handled it: the cell must not complete as if it had not")
		Expect(res.Error).To(ContainSubstring("lost-failure-7"), "the error must carry the failed tool's message\n%s", res)
		Expect(r.Tools.CallsOf("fail")).To(HaveLen(1), "the unawaited failing call must have been made")

		// Handled rejections are the guest's business: the cell completes.
		handled := []struct{ name, code, value string }{
			{"caught at once", `dispatch("fail", {message: "handled"}).catch(() => {}); return "ok";`, "ok"},
			{"awaited later in a try", `const p = dispatch("fail", {}); await call("echo", {}); try { await p; } catch (e) { return "caught"; } return "not thrown";`, "caught"},
			{"settled through Promise.allSettled", `const s = await Promise.allSettled([dispatch("fail", {}), dispatch("echo", {})]); return s[0].status;`, "rejected"},
			{"handled by then", `dispatch("fail", {}).then(() => {}, () => {}); return "ok";`, "ok"},
		}
		for _, c := range handled {
			res, _ := r.RunToCompletion(ctx, Guest(c.code))
			Expect(res).To(CompleteWith(c.value), "%s: the guest handled the rejection, so the cell completes", c.name)
		}

		// A call that succeeds unawaited has settled before the cell completes.
		s := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 3000}), Tools: tools.Standard()})
		res, _ = s.RunToCompletion(ctx, Guest(`dispatch("slow", {ms: 300, tag: "unawaited"}); return "ok";`))
		Expect(res).To(CompleteWith("ok"), "an unawaited call that succeeds does not change the value")
		Expect(s.Tools.Finished()).To(Equal(1), "the cell completed before its unawaited nested call settled")
		Expect(s.Tools.Canceled()).To(BeZero(), "the unawaited call was canceled instead of settled")
	})

})
