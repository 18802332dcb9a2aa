package codemode

import (
	"encoding/json"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var _ = Describe("codemode", "well-formed Unicode", func() {
	It("CM-EXEC-21", "every channel carries well-formed Unicode: a lone surrogate becomes U+FFFD in the value, output, error text and tool input", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		wellFormed := func(what string, raw []byte) {
			Expect(result.LoneSurrogates(raw)).To(BeZero(), "%s carries a lone UTF-16 surrogate (or bytes that are not UTF-8): %s", what, raw)
		}
		cells := []struct {
			name, code string
			value      any
			output     []result.Output
		}{
			{"a lone high surrogate as the value", `return "\ud83d";`, "\uFFFD", nil},
			{"lone surrogates in keys and values", `return {["k\ud83d"]: "a\udc00b", pair: "\ud83d\ude00"};`,
				map[string]any{"k\uFFFD": "a\uFFFDb", "pair": "\U0001F600"}, nil},
			{"text output", `text("x\ud83d"); return 1;`, 1, []result.Output{result.TextOutput("x\uFFFD")}},
			{"json output", `json({s: "\udfff", ["\ud800"]: 1}); return 1;`, 1, []result.Output{result.JSONOutput(json.RawMessage(`{"s":"\uFFFD","\uFFFD":1}`))}},
		}
		for _, c := range cells {
			res, _ := r.RunToCompletion(ctx, c.code)
			Expect(res).To(CompleteWith(c.value), "%s: a lone surrogate must arrive as U+FFFD and a pair as its character", c.name)
			wellFormed(c.name+": the result", res.Raw)
			if c.output != nil {
				Expect(res.Output).To(HaveLen(len(c.output)), "%s: one output item\n%s", c.name, res)
				for i, o := range c.output {
					Expect(res.Output[i].Type).To(Equal(o.Type), "%s: output item %d", c.name, i)
					if o.Text != nil {
						Expect(res.Output[i].Text).To(HaveValue(Equal(*o.Text)), "%s: the text item must have U+FFFD for the lone surrogate", c.name)
					} else {
						Expect(res.Output[i].Value).To(MatchJSON(o.Value), "%s: the json item must have U+FFFD for each lone surrogate", c.name)
					}
				}
			}
		}
		for _, code := range []string{`throw new Error("bad \ud83d");`, `const e = new Error("bad \ud83d"); e.name = "E\udc00"; throw e;`, `throw "bad \ud83d";`} {
			res, _ := r.RunToCompletion(ctx, code)
			Expect(res).To(BeFailed(), "a thrown error fails the cell")
			Expect(res.Error).To(ContainSubstring("bad \uFFFD"), "the error text must keep the message with U+FFFD for the lone surrogate\n%s", res)
			wellFormed("the failed result of "+code, res.Raw)
		}
		res, _ := r.RunToCompletion(ctx, Guest(`await call("echo", {s: "\ud83d!", ["\udc00"]: ["\ud83d\ude00"]}); return 1;`))
		Expect(res).To(CompleteWith(1), "a cell echoing a lone surrogate completes")
		calls := r.Tools.CallsOf("echo")
		Expect(calls).To(HaveLen(1), "the cell makes one echo call")
		wellFormed("the tool.invoke input", calls[0].Input)
		Expect(calls[0].Input).To(MatchJSON("{\"s\":\"\uFFFD!\",\"\uFFFD\":[\"\U0001F600\"]}"), "the tool.invoke input must carry U+FFFD for each lone surrogate and keep the pair")
	})
})
