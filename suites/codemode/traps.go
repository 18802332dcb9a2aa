package codemode

import (
	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var _ = Describe("codemode", "engine faults", func() {
	It("CM-EXEC-23", "unbounded recursion is a catchable RangeError or an honest internal_error, never a guest error made up by the runtime", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 5000}), Tools: tools.Standard()})
		// Each cell catches what the recursion throws: a working stack check
		// gives the guest its RangeError; an engine that cannot check its
		// stack crashes, and must say so (internal_error), not pretend the
		// guest threw.
		catch := ` } catch (e) { return e instanceof RangeError ? "RangeError" : "caught " + String(e); }`
		cells := []struct{ name, code string }{
			{"direct recursion", `function f(n) { return f(n + 1) + 1; } try { return f(0);` + catch},
			{"mutual recursion", `const a = (n) => b(n) + 1, b = (n) => a(n) + 1; try { return a(0);` + catch},
			{"recursive getter", `const o = {get x() { return this.x; }}; try { return o.x;` + catch},
			{"recursive toString", `const o = {}; o.toString = () => String(o); try { return String(o);` + catch},
			{"recursion in a job", `function f(n) { return f(n + 1) + 1; } return await Promise.resolve().then(() => { try { return f(0);` + catch + ` });`},
			{"recursive toJSON", `const o = {toJSON() { return JSON.stringify(o); }}; try { return JSON.stringify(o);` + catch},
			{"recursive construct", `class C { constructor() { new C(); } } try { new C(); return "no";` + catch},
		}
		for _, c := range cells {
			name := c.name
			res, _ := r.RunToCompletion(ctx, c.code)
			if res.Status == result.StatusCompleted {
				Expect(res).To(CompleteWith("RangeError"), "%s: the guest must catch a RangeError", name)
			} else {
				Expect(res).To(BeFailedWith(result.CodeInternalError),
					"%s: a recursion the guest catches either completes with its RangeError or, if the engine crashed, fails with internal_error; a failure without that code passes the runtime's crash off as the guest's error", name)
				Expect(res.Error).NotTo(MatchRegexp(`^(RangeError|InternalError|Error):`), "%s: an engine crash must not be reported as a guest exception\n%s", name, res)
			}
			Expect(r.Exec(ctx, `return 40 + 2;`)).To(CompleteWith(42), "the run must keep serving after %s", name)
		}
	}, HangIsFailure)
})
