package corpus_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing/fstest"

	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/codemode-conformance/codemode/suites/security/corpus"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

const good = `/*---
description: a loop
requirements: [CM-LIM-01, CM-SEC-04]
class: dos
tools: [echo, denied]
timeoutMs: 1000
memoryLimitBytes: 33554432
expect:
  code: timeout
---*/
while (true) {}
`

// withFront replaces good's front matter lines with front.
func withFront(front string) []byte {
	return []byte("/*---\n" + front + "\n---*/\nreturn 1;\n")
}

var _ = Describe("Parse", func() {
	It("reads every front-matter key and the code after the block", func() {
		c, err := corpus.Parse("loop.js", []byte(good))
		Expect(err).NotTo(HaveOccurred(), "a well-formed case must load")
		Expect(c.File).To(Equal("loop.js"))
		Expect(c.Requirements).To(Equal([]string{"CM-LIM-01", "CM-SEC-04"}))
		Expect(c.Class).To(Equal("dos"))
		Expect(c.Tools).To(Equal([]string{"echo", "denied"}))
		Expect(c.CodeMode()).To(Equal(map[string]any{"enabled": true, "timeoutMs": 1000, "memoryLimitBytes": int64(33554432)}))
		Expect(c.Code).To(Equal("while (true) {}"), "the guest code is the file after the block, trimmed")
		Expect(c.Policy()).NotTo(BeNil(), "the denied fixture brings a policy that denies it")
		Expect(c.Policy().Deny).To(Equal([]string{corpus.DeniedTool}))
		Expect(c.Fixtures()).To(HaveLen(2))
	})

	DescribeTable("refuses a malformed case with a typed error naming the file",
		func(src []byte, want error, mentions string) {
			_, err := corpus.Parse("bad.js", src)
			Expect(err).To(HaveOccurred(), "the loader must refuse %s", src)
			Expect(errors.Is(err, corpus.ErrInvalidCase)).To(BeTrue(), "every loader error wraps ErrInvalidCase: %v", err)
			Expect(errors.Is(err, want)).To(BeTrue(), "want %v, got %v", want, err)
			Expect(err.Error()).To(ContainSubstring("bad.js"), "the error names the file")
			Expect(err.Error()).To(ContainSubstring(mentions))
		},
		Entry("no block", []byte("return 1;\n"), corpus.ErrNoFrontMatter, "front-matter"),
		Entry("block not at the top", []byte("// x\n/*---\ndescription: d\n---*/\nreturn 1;"), corpus.ErrNoFrontMatter, "front-matter"),
		Entry("unknown key", withFront("description: d\nrequirements: [CM-LIM-01]\nclass: dos\nexpect: {code: timeout}\nfeatures: [x]"), corpus.ErrInvalidCase, "features"),
		Entry("unknown key in expect", withFront("description: d\nrequirements: [CM-LIM-01]\nclass: dos\nexpect: {code: timeout, stderr: x}"), corpus.ErrInvalidCase, "stderr"),
		Entry("duplicate key", withFront("description: d\ndescription: e\nrequirements: [CM-LIM-01]\nclass: dos\nexpect: {code: timeout}"), corpus.ErrInvalidCase, "description"),
		Entry("unknown requirement", withFront("description: d\nrequirements: [CM-LIM-99]\nclass: dos\nexpect: {code: timeout}"), corpus.ErrUnknownRequirement, "CM-LIM-99"),
		Entry("no requirement", withFront("description: d\nclass: dos\nexpect: {code: timeout}"), corpus.ErrUnknownRequirement, "requirements"),
		Entry("repeated requirement", withFront("description: d\nrequirements: [CM-LIM-01, CM-LIM-01]\nclass: dos\nexpect: {code: timeout}"), corpus.ErrUnknownRequirement, "twice"),
		Entry("unknown tool", withFront("description: d\nrequirements: [CM-LIM-01]\nclass: dos\ntools: [shell]\nexpect: {code: timeout}"), corpus.ErrUnknownTool, "shell"),
		Entry("unknown class", withFront("description: d\nrequirements: [CM-LIM-01]\nclass: fuzz\nexpect: {code: timeout}"), corpus.ErrUnknownClass, "fuzz"),
		Entry("no description", withFront("requirements: [CM-LIM-01]\nclass: dos\nexpect: {code: timeout}"), corpus.ErrInvalidCase, "description"),
		Entry("no expect", withFront("description: d\nrequirements: [CM-LIM-01]\nclass: dos"), corpus.ErrBadExpect, "expect"),
		Entry("empty expect", withFront("description: d\nrequirements: [CM-LIM-01]\nclass: dos\nexpect: {}"), corpus.ErrBadExpect, "sets none"),
		Entry("unknown code", withFront("description: d\nrequirements: [CM-LIM-01]\nclass: dos\nexpect: {code: too_slow}"), corpus.ErrBadExpect, "too_slow"),
		Entry("unknown status", withFront("description: d\nrequirements: [CM-LIM-01]\nclass: dos\nexpect: {status: waiting}"), corpus.ErrBadExpect, "waiting"),
		Entry("value that is not JSON", withFront("description: d\nrequirements: [CM-LIM-01]\nclass: dos\nexpect: {value: '{a: 1}'}"), corpus.ErrBadExpect, "not JSON"),
		Entry("bad regexp", withFront("description: d\nrequirements: [CM-LIM-01]\nclass: dos\nexpect: {errorMatches: '(('}"), corpus.ErrBadExpect, "errorMatches"),
		Entry("value with a code", withFront("description: d\nrequirements: [CM-LIM-01]\nclass: dos\nexpect: {value: '1', code: timeout}"), corpus.ErrBadExpect, "cannot have both"),
		Entry("status contradicting a code", withFront("description: d\nrequirements: [CM-LIM-01]\nclass: dos\nexpect: {status: completed, code: timeout}"), corpus.ErrBadExpect, "contradicts"),
		Entry("inline outcome and anyOf", withFront("description: d\nrequirements: [CM-LIM-01]\nclass: dos\nexpect: {code: timeout, anyOf: [{status: failed}, {value: '1'}]}"), corpus.ErrBadExpect, "both"),
		Entry("anyOf of one", withFront("description: d\nrequirements: [CM-LIM-01]\nclass: dos\nexpect: {anyOf: [{code: timeout}]}"), corpus.ErrBadExpect, "one alternative"),
		Entry("bad alternative", withFront("description: d\nrequirements: [CM-LIM-01]\nclass: dos\nexpect: {anyOf: [{code: timeout}, {code: nope}]}"), corpus.ErrBadExpect, "anyOf[1]"),
		Entry("timeout out of range", withFront("description: d\nrequirements: [CM-LIM-01]\nclass: dos\ntimeoutMs: 600000\nexpect: {code: timeout}"), corpus.ErrInvalidCase, "timeoutMs"),
		Entry("expectByProfile for an unknown profile", withFront("description: d\nrequirements: [CM-LIM-01]\nclass: dos\nexpect: {code: timeout}\nexpectByProfile: {v9: {code: timeout}}"), corpus.ErrBadExpect, "v9"),
		Entry("expectByProfile with a bad outcome", withFront("description: d\nrequirements: [CM-LIM-01]\nclass: dos\nexpect: {code: timeout}\nexpectByProfile: {v2: {code: nope}}"), corpus.ErrBadExpect, "v2"),
		Entry("truncatedWithin with a code", withFront("description: d\nrequirements: [CM-LIM-01]\nclass: dos\nexpect: {truncatedWithin: 100, code: timeout}"), corpus.ErrBadExpect, "cannot have both"),
		Entry("truncatedWithin with guest code that writes the word", []byte("/*---\ndescription: d\nrequirements: [CM-LIM-03]\nclass: serialisation\nexpect: {code: output_limit_exceeded}\nexpectByProfile: {v2: {anyOf: [{code: output_limit_exceeded}, {truncatedWithin: 100}]}}\n---*/\nreturn \"Truncated \".repeat(1e5);\n"), corpus.ErrBadExpect, "truncation word"),
		Entry("no code", []byte("/*---\ndescription: d\nrequirements: [CM-LIM-01]\nclass: dos\nexpect: {code: timeout}\n---*/\n"), corpus.ErrInvalidCase, "no guest code"),
	)
})

var _ = Describe("Load", func() {
	It("loads every *.js file of the directory in name order and stops at the first bad one", func() {
		fsys := fstest.MapFS{"c/b.js": {Data: []byte(good)}, "c/a.js": {Data: []byte(good)}, "c/notes.txt": {Data: []byte("x")}}
		cs, err := corpus.Load(fsys, "c")
		Expect(err).NotTo(HaveOccurred())
		Expect([]string{cs[0].File, cs[1].File}).To(Equal([]string{"a.js", "b.js"}), "only *.js files, sorted")
		fsys["c/c.js"] = &fstest.MapFile{Data: withFront("description: d\nrequirements: [CM-NOPE-1]\nclass: dos\nexpect: {code: timeout}")}
		_, err = corpus.Load(fsys, "c")
		Expect(err).To(MatchError(ContainSubstring("c.js")), "a bad case fails the whole load, naming its file")
		_, err = corpus.Load(fstest.MapFS{}, "c")
		Expect(err).To(MatchError(corpus.ErrInvalidCase), "a directory without cases is an error")
	})

	It("loads the checked-in corpus: at least 60 cases covering every fault class", func() {
		cs, err := corpus.Load(os.DirFS(".."), "cases")
		Expect(err).NotTo(HaveOccurred(), "every checked-in case must load")
		Expect(len(cs)).To(BeNumerically(">=", 60), "issue 11 asks for at least 60 cases")
		classes := map[string]int{}
		for _, c := range cs {
			classes[c.Class]++
		}
		for _, k := range corpus.Classes {
			Expect(classes[k]).To(BeNumerically(">=", 5), "class %s needs cases (have %v)", k, classes)
		}
	})
})

var _ = Describe("Expect.Check", func() {
	parse := func(expect string) corpus.Expect {
		GinkgoHelper()
		c, err := corpus.Parse("x.js", withFront("description: d\nrequirements: [CM-LIM-01]\nclass: dos\nexpect:\n"+expect))
		Expect(err).NotTo(HaveOccurred(), "expect block %q must load", expect)
		return c.Expect
	}
	completed := func(v string) result.Result {
		return result.Result{Status: result.StatusCompleted, Value: json.RawMessage(v)}
	}
	failed := func(code result.ErrorCode, msg string) result.Result {
		return result.Result{Status: result.StatusFailed, Code: code, Error: msg}
	}

	DescribeTable("meets or misses each predicate",
		func(expect string, res result.Result, meets bool, mentions string) {
			why := parse(expect).Check(res)
			if meets {
				Expect(why).To(BeEmpty(), "%s must meet %q", res.Status, expect)
				return
			}
			Expect(why).NotTo(BeEmpty(), "%+v must miss %q", res, expect)
			Expect(why).To(ContainSubstring(mentions))
		},
		Entry("value, key order and number spelling aside", "  value: '{\"a\": 1.0, \"b\": [2]}'", completed(`{"b":[2],"a":1}`), true, ""),
		Entry("value differs: a go-cmp diff", "  value: '{\"a\": 1}'", completed(`{"a":2}`), false, "-want +got"),
		Entry("value on a failed result", "  value: 'null'", failed("", "x"), false, "want completed"),
		Entry("null value", "  value: 'null'", completed(`null`), true, ""),
		Entry("status", "  status: failed", failed(result.CodeTimeout, "t"), true, ""),
		Entry("code", "  code: timeout", failed(result.CodeTimeout, "t"), true, ""),
		Entry("another code", "  code: timeout", failed(result.CodeInternalError, "crash"), false, `want "timeout"`),
		Entry("a completed result for a code", "  code: timeout", completed(`1`), false, "want failed"),
		Entry("valueMatches on the JSON text", "  valueMatches: '^\"x+\"$'", completed(`"xxx"`), true, ""),
		Entry("valueMatches missed", "  valueMatches: '^\\['", completed(`{}`), false, "does not match"),
		Entry("errorMatches", "  errorMatches: 'boom'", failed("", "Error: boom"), true, ""),
		Entry("errorMatches missed", "  errorMatches: 'boom'", failed("", "Error: bang"), false, "does not match"),
		Entry("code and errorMatches together", "  code: nested_tool_failed\n  errorMatches: 'tool said no'", failed(result.CodeNestedToolFailed, "tool said no"), true, ""),
		Entry("truncatedWithin: bounded and says so", "  truncatedWithin: 100", completed(`{"truncated":true,"preview":"xx"}`), true, ""),
		Entry("truncatedWithin: says so in an output item", "  truncatedWithin: 100",
			result.Result{Status: result.StatusCompleted, Value: json.RawMessage(`"done"`), Output: []result.Output{result.JSONOutput(json.RawMessage(`{"truncated":true}`))}}, true, ""),
		Entry("truncatedWithin: says so in a text item", "  truncatedWithin: 100",
			result.Result{Status: result.StatusCompleted, Value: json.RawMessage(`"xx"`), Output: []result.Output{result.TextOutput("[value truncated to 65536 bytes]")}}, true, ""),
		Entry("truncatedWithin: a negated note", "  truncatedWithin: 100",
			result.Result{Status: result.StatusCompleted, Value: json.RawMessage(`"xx"`), Output: []result.Output{result.TextOutput("(output not truncated)")}}, false, "not a truncated result"),
		Entry("truncatedWithin: a nested member is the guest's", "  truncatedWithin: 100", completed(`{"data":{"truncated":true}}`), false, "not a truncated result"),
		Entry("truncatedWithin: does not say so", "  truncatedWithin: 100", completed(`"xx"`), false, "not a truncated result"),
		Entry("truncatedWithin: over the bound", "  truncatedWithin: 100", completed(`{"truncated":true,"preview":"`+strings.Repeat("x", 200)+`"}`), false, "at most 100"),
		Entry("truncatedWithin on a failed result", "  truncatedWithin: 100", failed(result.CodeOutputLimitExceeded, "big"), false, "want completed"),
		Entry("anyOf: one alternative holds", "  anyOf:\n    - code: timeout\n    - value: '1'", completed(`1`), true, ""),
		Entry("anyOf: none holds, each reason listed", "  anyOf:\n    - code: timeout\n    - value: '1'", completed(`2`), false, "anyOf[1]"),
	)
})

var _ = Describe("Case.ExpectFor", func() {
	It("gives expectByProfile's outcome under its profile and expect under the others", func() {
		c, err := corpus.Parse("x.js", withFront("description: d\nrequirements: [CM-LIM-03]\nclass: serialisation\nexpect: {code: output_limit_exceeded}\nexpectByProfile:\n  v2:\n    anyOf:\n      - code: output_limit_exceeded\n      - truncatedWithin: 100"))
		Expect(err).NotTo(HaveOccurred())
		cut := result.Result{Status: result.StatusCompleted, Value: json.RawMessage(`{"truncated":true}`)}
		Expect(c.ExpectFor("v1").Check(cut)).NotTo(BeEmpty(), "v1 wants the code")
		Expect(c.ExpectFor("v2").Check(cut)).To(BeEmpty(), "v2 allows a bounded truncated result")
		Expect(c.ExpectFor("v2").Check(result.Result{Status: result.StatusFailed, Code: result.CodeOutputLimitExceeded})).To(BeEmpty(), "v2 still allows the code")
	})
})

var _ = Describe("the lone surrogate check (CM-EXEC-21)", func() {
	It("fails a result carrying one even when the decoded value matches", func() {
		c, err := corpus.Parse("x.js", withFront("description: d\nrequirements: [CM-EXEC-21]\nclass: serialisation\nexpect:\n  value: '\"\\uFFFD\"'"))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Expect.CheckRaw([]byte(`{"status":"completed","value":"\ufffd"}`))).To(BeEmpty(), "U+FFFD itself meets the case")
		Expect(c.Expect.CheckRaw([]byte(`{"status":"completed","value":"\ud800"}`))).To(ContainSubstring("CM-EXEC-21: the result carries a lone surrogate escape \\ud800 at byte 31"),
			"Go decodes \\ud800 to U+FFFD, so only the raw check can catch it")
	})
})
