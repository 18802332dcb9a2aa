package codemode

import (
	"github.com/codemode-conformance/codemode/fakes/tools"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var _ = Describe("codemode", "thrown values and Error values", func() {
	It("CM-EXEC-22", "a thrown non-Error keeps its content in the error text, and an Error value becomes {name, message}", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		thrown := []struct {
			name, code string
			content    []string // what the error text must contain
		}{
			{"a plain object", `throw {status: 404};`, []string{"status", "404"}},
			{"an object with a message only", `throw {message: "only a message"};`, []string{"only a message"}},
			{"an array", `throw [1, "two", {three: 3}];`, []string{"two", "three"}},
			{"a number", `throw 418;`, []string{"418"}},
			{"a string", `throw "plain words";`, []string{"plain words"}},
			{"a class instance", `class HttpError { constructor() { this.status = 503; this.detail = "busy"; } } throw new HttpError();`, []string{"503", "busy"}},
			{"a rejected plain object", `await Promise.reject({reason: "nope", at: 7});`, []string{"nope", "7"}},
			{"an object rejected in a job", `await new Promise((_, reject) => Promise.resolve().then(() => reject({code: "E_LATE"})));`, []string{"E_LATE"}},
		}
		for _, c := range thrown {
			res, _ := r.RunToCompletion(ctx, c.code)
			Expect(res).To(BeFailed(), "%s: an uncaught throw fails the cell", c.name)
			for _, s := range c.content {
				Expect(res.Error).To(ContainSubstring(s), "%s: the error text must keep the thrown value's content (%q)\n%s", c.name, s, res)
			}
			Expect(res.Error).NotTo(ContainSubstring("undefined"), "%s: the error text names a member the thrown value does not have\n%s", c.name, res)
		}
		res, _ := r.RunToCompletion(ctx, `return new Error("x");`)
		Expect(res).To(CompleteWith(map[string]any{"name": "Error", "message": "x"}), "a returned Error becomes {name, message}")
		res, _ = r.RunToCompletion(ctx, `const e = new TypeError("t"); e.status = 400; json(e); return {inner: new RangeError("r")};`)
		Expect(res).To(CompleteWith(map[string]any{"inner": map[string]any{"name": "RangeError", "message": "r"}}), "an Error nested in the value becomes {name, message}")
		Expect(res.Output).To(HaveLen(1), "one json item\n%s", res)
		Expect(res.Output[0].Value).To(MatchJSON(`{"name":"TypeError","message":"t","status":400}`), "json(error) writes {name, message} plus the enumerable own properties")
		res, _ = r.RunToCompletion(ctx, Guest(`return (await call("echo", {e: new Error("in input")}));`))
		Expect(res).To(CompleteWith(map[string]any{"e": map[string]any{"name": "Error", "message": "in input"}}), "an Error in a tool input reaches the tool as {name, message} %s", EnvelopeNote)
	})
})
