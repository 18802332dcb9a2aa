package diff_test

import (
	"encoding/json"

	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/codemode-conformance/codemode/tools/diff"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func completed(value string) diff.Observation {
	return diff.Observation{Status: "completed", Value: json.RawMessage(value)}
}

func text(items ...string) []result.Output {
	var out []result.Output
	for _, s := range items {
		out = append(out, result.TextOutput(s))
	}
	return out
}

var _ = Describe("Classify", func() {
	rules := diff.DefaultRules()

	It("finds no difference in key order or number spelling", func() {
		v := diff.Classify(completed(`{"a":1,"b":[2.0]}`), completed(`{"b":[2],"a":1.0}`), rules)
		Expect(cmp.Diff(diff.Verdict{Class: diff.Same}, v)).To(BeEmpty())
	})

	It("calls OpenClaw's tool envelope around the same value shape only, by the committed rule", func() {
		v := diff.Classify(completed(`{"m":"hi"}`), completed(`{"tool":{"id":"openclaw:core:echo"},"result":{"details":{"m":"hi"}}}`), rules)
		Expect(cmp.Diff(diff.Verdict{Class: diff.Shape, Fields: []string{"value"}, Rules: []string{"openclaw-tool-envelope"}}, v)).To(BeEmpty())
	})

	It("keeps a different value inside the envelope behavioural", func() {
		v := diff.Classify(completed(`{"m":"hi"}`), completed(`{"tool":{"id":"x"},"result":{"details":{"m":"ho"}}}`), rules)
		Expect(v.Class).To(Equal(diff.Behavioural))
		Expect(v.Fields).To(Equal([]string{"value"}))
		Expect(v.Fingerprint).NotTo(BeEmpty(), "a behavioural difference is fingerprinted for triage")
	})

	It("applies a rule given as data, and only to its field", func() {
		r, err := diff.ParseRules([]byte("rules:\n  - name: deadline-alias\n    kind: alias\n    field: code\n    codes: [timeout, deadline_exceeded]\n    note: two spellings of one deadline\n"))
		Expect(err).NotTo(HaveOccurred())
		a := diff.Observation{Status: "failed", Code: "timeout"}
		b := diff.Observation{Status: "failed", Code: "deadline_exceeded"}
		Expect(diff.Classify(a, b, r).Class).To(Equal(diff.Shape))
		Expect(diff.Classify(a, b, nil).Class).To(Equal(diff.Behavioural), "without the rule the codes differ in behaviour")
		b.Status = "completed"
		Expect(diff.Classify(a, b, r)).To(Equal(diff.Verdict{Class: diff.Behavioural, Fields: []string{"status"}, Rules: []string{"deadline-alias"},
			Fingerprint: diff.Classify(a, b, r).Fingerprint}), "a rule never hides a difference in another field")
	})

	It("joins split text output by the committed rule", func() {
		a, b := completed(`null`), completed(`null`)
		a.Output, b.Output = text("ab"), text("a", "b")
		Expect(diff.Classify(a, b, rules).Class).To(Equal(diff.Shape))
		b.Output = text("a", "c")
		Expect(diff.Classify(a, b, rules).Class).To(Equal(diff.Behavioural))
	})

	It("compares nested calls as a multiset of tool and input", func() {
		call := func(in string) diff.Call { return diff.Call{Tool: "echo", Input: json.RawMessage(in)} }
		a, b := completed(`1`), completed(`1`)
		a.Calls, b.Calls = []diff.Call{call(`{"m":1}`), call(`{"m":2}`)}, []diff.Call{call(`{"m":2}`), call(`{"m":1}`)}
		Expect(diff.Classify(a, b, rules).Class).To(Equal(diff.Same), "concurrent calls arrive in any order")
		b.Calls = b.Calls[:1]
		Expect(diff.Classify(a, b, rules).Fields).To(Equal([]string{"calls"}))
	})

	DescribeTable("refuses a malformed rules file",
		func(src, want string) {
			_, err := diff.ParseRules([]byte(src))
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("no note", "rules:\n  - {name: x, kind: joinText, field: output}\n", "needs a note"),
		Entry("unknown kind", "rules:\n  - {name: x, kind: regex, field: value, note: n}\n", "kind must be"),
		Entry("unknown key", "rules:\n  - {name: x, kind: joinText, field: output, note: n, when: y}\n", "when"),
		Entry("alias on a value", "rules:\n  - {name: x, kind: alias, field: value, codes: [a, b], note: n}\n", "alias needs field code"),
	)
})
