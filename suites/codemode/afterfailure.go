package codemode

import (
	"fmt"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var _ = Describe("codemode", "continuing after a failure", func() {
	It("CM-GUEST-12", "the next exec after a failed cell does not re-run the nested calls that already completed", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: roomy(nil), Tools: tools.Standard()})
		res, _ := r.RunToCompletion(ctx, Guest(`await call("echo", {n: 1}); await call("add", {a: 1, b: 2}); throw new Error("after two side effects");`))
		Expect(res).To(BeFailed(), "the cell throws after two nested calls: it must fail")
		Expect(r.Exec(ctx, `return "next";`)).To(CompleteWith("next"), "the run must continue with the next exec")
		res, _ = r.RunToCompletion(ctx, Guest(fmt.Sprintf(`await call("echo", {n: 2}); await call("slow", {ms: %d}); throw new Error("after a wait");`, roomySlowMs)))
		Expect(res).To(BeFailed(), "the cell throws after its waits: it must fail")
		Expect(r.Exec(ctx, `return "next again";`)).To(CompleteWith("next again"), "the run must continue after a cell that failed after a wait")
		var echoed []string
		for _, c := range r.Tools.CallsOf("echo") {
			echoed = append(echoed, string(c.Input))
		}
		Expect(echoed).To(HaveLen(2), "each completed echo call must run exactly once; the failures must not replay them: %v", echoed)
		Expect(echoed[0]).To(MatchJSON(`{"n":1}`), "the first echo call ran once, first")
		Expect(echoed[1]).To(MatchJSON(`{"n":2}`), "the second echo call ran once, second")
		Expect(r.Tools.CallsOf("add")).To(HaveLen(1), "the completed add call must not run again after its cell failed")
		Expect(r.Tools.CallsOf("slow")).To(HaveLen(1), "the completed slow call must not run again after its cell failed")
	})

	It("CM-GUEST-12", "a failed cell grants no permission: a denied tool stays unreachable in the next cells", func(ctx SpecContext) {
		ts := tools.Standard()
		// The routes to the denied tool: the dialect's dispatch by name, the
		// callable name's async global (001, spec/protocol.md §12.13) and,
		// where the cell has 000's tools, the id it had in an unrestricted run
		// and its tools.<name> helper (guessed routes are the subject: each
		// inside a try).
		open := NewRun(ctx, RunOptions{CodeMode: true, Tools: ts})
		Expect(catalogNames(ctx, open)).To(ContainElement("fail"), "an unrestricted run lists the fail tool")
		res := open.Exec(ctx, `return typeof ALL_TOOLS !== "undefined" && Array.isArray(ALL_TOOLS) ? ALL_TOOLS.find((t) => t.name === "fail").id : null;`)
		Expect(res).To(BeCompleted(), "a cell reading the fail tool's 000 id, where the cell has ALL_TOOLS, must complete")
		denied, _ := res.ValueAny().(string)
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: ts, Policy: &protocol.Policy{Deny: []string{"fail"}}})
		try := Guest(fmt.Sprintf(`const denied = %q; let reached = 0;
			const routes = [() => dispatch("fail", {message: "x"}), () => globalThis.fail({message: "x"})];
			if (denied !== "" && typeof tools !== "undefined" && tools !== null) routes.push(() => tools.call(denied, {message: "x"}), () => tools.fail({message: "x"}));
			for (const route of routes) { try { await route(); reached++; } catch (e) {} }`, denied))
		res, _ = r.RunToCompletion(ctx, try+` throw new Error("fail the cell after trying the denied tool");`)
		Expect(res).To(BeFailed(), "the cell throws: it must fail")
		uncaught := `await globalThis.fail({message: "uncaught"}); return "called";`
		if denied != "" {
			uncaught = fmt.Sprintf(`if (typeof tools !== "undefined" && tools !== null) await tools.call(%q, {message: "uncaught"}); else await globalThis.fail({message: "uncaught"}); return "called";`, denied)
		}
		res, _ = r.RunToCompletion(ctx, uncaught)
		Expect(res).To(BeFailed(), "an uncaught call of the denied tool must fail the cell")
		res, _ = r.RunToCompletion(ctx, try+` return {reached, listed: listTools().some((t) => t.name === "fail"), found: (await search("fail")).some((t) => t.name === "fail")};`)
		Expect(res).To(CompleteWith(map[string]any{"reached": 0, "listed": false, "found": false}), "after failed cells the denied tool must stay unreachable and unlisted")
		Expect(r.Tools.CallsOf("fail")).To(BeEmpty(), "the denied tool reached the harness after a failed cell")
	})
})
