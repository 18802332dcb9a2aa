package report_test

import (
	"fmt"
	"strings"
	"testing"

	specs "github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestReport(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "report")
}

// spec builds a SpecResult of requirement id in a Ginkgo state.
func spec(id, text, state string) report.SpecResult {
	return report.SpecResult{Requirement: id, Text: id + " " + text, FullText: "suite " + id + " " + text, State: state, Message: "boom"}
}

func crashed(s report.SpecResult) report.SpecResult {
	s.HarnessError = "target connection lost during tool.exec"
	return s
}

func baseline(src string) *report.Baseline {
	GinkgoHelper()
	b, err := report.ParseBaseline([]byte(src))
	Expect(err).NotTo(HaveOccurred())
	return b
}

// specVerdicts maps spec text to verdict.
func specVerdicts(ev report.Evaluation) map[string]report.Verdict {
	out := map[string]report.Verdict{}
	for _, s := range ev.Specs {
		out[s.Text] = s.Verdict
	}
	return out
}

var _ = Describe("Evaluate", func() {
	type want struct {
		Specs        map[string]report.Verdict
		Requirements map[string]report.Verdict
		Unused       []string
	}
	DescribeTable("applies the baseline per spec and aggregates per requirement",
		func(specs []report.SpecResult, b string, w want) {
			var bl *report.Baseline
			if b != "" {
				bl = baseline(b)
			}
			ev := report.Evaluate(specs, bl)
			got := want{Specs: specVerdicts(ev), Requirements: ev.Requirements, Unused: ev.Unused}
			Expect(cmp.Diff(w, got)).To(BeEmpty())
		},
		Entry("no baseline: states map to pass, skip, fail and error",
			[]report.SpecResult{spec("CM-EXEC-01", "a", "passed"), spec("CM-EXEC-02", "b", "skipped"), spec("CM-EXEC-03", "c", "failed"),
				spec("CM-EXEC-04", "d", "panicked"), spec("CM-EXEC-05", "e", "timedout"), crashed(spec("CM-EXEC-06", "f", "failed"))},
			"",
			want{
				Specs: map[string]report.Verdict{"CM-EXEC-01 a": report.Pass, "CM-EXEC-02 b": report.Skip, "CM-EXEC-03 c": report.Fail,
					"CM-EXEC-04 d": report.Error, "CM-EXEC-05 e": report.Error, "CM-EXEC-06 f": report.Error},
				Requirements: map[string]report.Verdict{"CM-EXEC-01": report.Pass, "CM-EXEC-02": report.Skip, "CM-EXEC-03": report.Fail,
					"CM-EXEC-04": report.Error, "CM-EXEC-05": report.Error, "CM-EXEC-06": report.Error},
			}),
		Entry("a requirement takes the worst verdict of its specs",
			[]report.SpecResult{spec("CM-EXEC-01", "a", "passed"), spec("CM-EXEC-01", "b", "skipped"),
				spec("CM-EXEC-02", "a", "passed"), crashed(spec("CM-EXEC-02", "b", "failed")), spec("CM-EXEC-02", "c", "failed")},
			"",
			want{
				Specs: map[string]report.Verdict{"CM-EXEC-01 a": report.Pass, "CM-EXEC-01 b": report.Skip,
					"CM-EXEC-02 a": report.Pass, "CM-EXEC-02 b": report.Error, "CM-EXEC-02 c": report.Fail},
				Requirements: map[string]report.Verdict{"CM-EXEC-01": report.Skip, "CM-EXEC-02": report.Fail},
			}),
		Entry("a listed requirement: failing is xfail, all passing is xpass (its specs too), skipped stays skipped",
			[]report.SpecResult{spec("CM-LIM-03", "a", "failed"), spec("CM-LIM-03", "b", "passed"),
				spec("CM-LIM-01", "a", "passed"), spec("CM-LIM-02", "a", "skipped")},
			"requirements: [CM-LIM-03, CM-LIM-01, CM-LIM-02, CM-LIM-05]",
			want{
				Specs: map[string]report.Verdict{"CM-LIM-03 a": report.XFail, "CM-LIM-03 b": report.Pass,
					"CM-LIM-01 a": report.XPass, "CM-LIM-02 a": report.Skip},
				Requirements: map[string]report.Verdict{"CM-LIM-03": report.XFail, "CM-LIM-01": report.XPass, "CM-LIM-02": report.Skip},
				Unused:       []string{"CM-LIM-05"},
			}),
		Entry("a listed spec, by text or by full text: failing is xfail, passing is xpass; others are unaffected",
			[]report.SpecResult{spec("CM-LIM-03", "a", "failed"), spec("CM-LIM-03", "b", "passed"), spec("CM-LIM-03", "c", "failed"),
				spec("CM-LIM-01", "a", "failed")},
			`specs: ["CM-LIM-03 a", {name: "suite CM-LIM-03 b", reason: "known"}, "CM-LIM-04 gone"]`,
			want{
				Specs: map[string]report.Verdict{"CM-LIM-03 a": report.XFail, "CM-LIM-03 b": report.XPass, "CM-LIM-03 c": report.Fail,
					"CM-LIM-01 a": report.Fail},
				Requirements: map[string]report.Verdict{"CM-LIM-03": report.Fail, "CM-LIM-01": report.Fail},
				Unused:       []string{"CM-LIM-04 gone"},
			}),
		Entry("a stale spec entry outranks an expected failure of the same requirement",
			[]report.SpecResult{spec("CM-LIM-03", "a", "failed"), spec("CM-LIM-03", "b", "passed")},
			`specs: ["CM-LIM-03 a", "CM-LIM-03 b"]`,
			want{
				Specs:        map[string]report.Verdict{"CM-LIM-03 a": report.XFail, "CM-LIM-03 b": report.XPass},
				Requirements: map[string]report.Verdict{"CM-LIM-03": report.XPass},
			}),
		Entry("errors are never expected",
			[]report.SpecResult{crashed(spec("CM-LIM-03", "a", "failed")), spec("CM-LIM-01", "a", "panicked")},
			"requirements: [CM-LIM-03]\nspecs: [CM-LIM-01 a]",
			want{
				Specs:        map[string]report.Verdict{"CM-LIM-03 a": report.Error, "CM-LIM-01 a": report.Error},
				Requirements: map[string]report.Verdict{"CM-LIM-03": report.Error, "CM-LIM-01": report.Error},
			}),
	)

	It("marks each passing spec of a stale requirement entry as xpass, with the entry's reason", func() {
		ev := report.Evaluate([]report.SpecResult{spec("CM-LIM-01", "a", "passed"), spec("CM-LIM-01", "b", "passed")},
			baseline("requirements: [{id: CM-LIM-01, reason: slow}]"))
		for _, s := range ev.Specs {
			Expect(s.Verdict).To(Equal(report.XPass), s.Text)
			Expect(s.Expected).To(Equal("slow"), s.Text)
		}
	})

	It("accepts both outcomes of a flaky spec entry, records each with its verdict and never hides it", func() {
		b := baseline(`specs: [{name: "CM-LIM-01 a", flaky: true, reason: "deadline or heap first"}, "CM-LIM-01 b"]`)
		passed := report.Evaluate([]report.SpecResult{spec("CM-LIM-01", "a", "passed"), spec("CM-LIM-01", "b", "failed")}, b)
		Expect(cmp.Diff(map[string]report.Verdict{"CM-LIM-01 a": report.Pass, "CM-LIM-01 b": report.XFail}, specVerdicts(passed))).To(BeEmpty(),
			"a flaky spec that passes stays a pass, not an xpass")
		Expect(passed.Requirements).To(HaveKeyWithValue("CM-LIM-01", report.XFail), "the requirement still takes its worst spec")
		Expect(passed.Specs[0].Flaky).To(BeTrue(), "the verdict carries the flaky flag")
		Expect(passed.Specs[0].Expected).To(Equal("deadline or heap first"), "the verdict carries the entry's reason")
		Expect(cmp.Diff([]report.FlakyOutcome{{Name: "CM-LIM-01 a", Verdict: report.Pass, Reason: "deadline or heap first"}}, passed.Flaky)).To(BeEmpty(),
			"the evaluation lists the flaky entry with this run's outcome")
		c := report.NewConformance(passed, nil, b)
		Expect(c.FlakyLine()).To(ContainSubstring("CM-LIM-01 a: pass"), "summary and console say how the flaky spec came out")
		Expect(c.Requirements[0].Specs[0].Flaky).To(Equal("deadline or heap first"), "conformance-report.yaml marks the spec line")

		failed := report.Evaluate([]report.SpecResult{spec("CM-LIM-01", "a", "failed")}, b)
		Expect(failed.Specs[0].Verdict).To(Equal(report.XFail), "a flaky spec that fails is an xfail")
		Expect(failed.Flaky[0].Verdict).To(Equal(report.XFail), "and is listed as such")
		errored := report.Evaluate([]report.SpecResult{crashed(spec("CM-LIM-01", "a", "failed"))}, b)
		Expect(errored.Specs[0].Verdict).To(Equal(report.Error), "errors are never expected, flaky or not")

		// The deliberately broken reading: without flaky the same pass is a stale entry.
		stale := report.Evaluate([]report.SpecResult{spec("CM-LIM-01", "a", "passed")}, baseline(`specs: [{name: "CM-LIM-01 a", reason: "x"}]`))
		Expect(stale.Specs[0].Verdict).To(Equal(report.XPass), "without flaky: true a listed spec that passes is an xpass")
		Expect(stale.Flaky).To(BeEmpty(), "and it is not listed as flaky")
	})

	It("records the baseline reason, or listed", func() {
		ev := report.Evaluate([]report.SpecResult{spec("CM-LIM-03", "a", "failed"), spec("CM-LIM-01", "a", "failed")},
			baseline("requirements: [{id: CM-LIM-03, reason: not yet}, CM-LIM-01]"))
		Expect(cmp.Diff([]string{"not yet", "listed"}, []string{ev.Specs[0].Expected, ev.Specs[1].Expected})).To(BeEmpty())
	})
})

var _ = Describe("JudgeIn", func() {
	It("does not count a core requirement its profile does not judge as a core skip", func() {
		v := map[string]report.Verdict{"CM-CFG-06": report.Skip, "CM-EXEC-01": report.Pass}
		o, why := report.JudgeIn("v2", v, nil, false)
		Expect(o).To(Equal(report.Success), "CM-CFG-06 is profiles: [v1] (spec/requirements.yaml): outside v2: %v", why)
		o, why = report.JudgeIn("v1", v, nil, false)
		Expect(o).To(Equal(report.Partial), "under v1 its skip is a core skip")
		Expect(why).To(Equal([]string{"core requirements skipped: CM-CFG-06"}))
	})
})

var _ = Describe("Judge", func() {
	type verdicts = map[string]report.Verdict
	DescribeTable("decides success, partial or failure and says why",
		func(v verdicts, suiteErrors []string, withBaseline bool, overall report.Overall, reasons []string) {
			got, why := report.Judge(v, suiteErrors, withBaseline)
			Expect(cmp.Diff(struct {
				O report.Overall
				R []string
			}{overall, reasons}, struct {
				O report.Overall
				R []string
			}{got, why})).To(BeEmpty())
		},
		Entry("all pass", verdicts{"CM-EXEC-01": report.Pass}, nil, false, report.Success, nil),
		Entry("a skipped non-core requirement is still success", verdicts{"CM-EXEC-01": report.Pass, "CM-TS-01": report.Skip}, nil, false, report.Success, nil),
		Entry("a skipped core requirement is partial", verdicts{"CM-EXEC-01": report.Skip, "CM-TS-01": report.Skip, "CM-EXEC-02": report.Pass}, nil, false,
			report.Partial, []string{"core requirements skipped: CM-EXEC-01"}),
		Entry("nothing tested (every requirement skipped) is a failure, even with a baseline", verdicts{"CM-EXEC-01": report.Skip, "CM-TS-01": report.Skip}, nil, true,
			report.Failure, []string{"nothing tested: every selected requirement was skipped: CM-EXEC-01 CM-TS-01"}),
		Entry("a baseline makes it at best partial", verdicts{"CM-EXEC-01": report.Pass, "CM-LIM-03": report.XFail}, nil, true,
			report.Partial, []string{"run with an expected-failures baseline"}),
		Entry("a baseline with nothing to excuse is still partial", verdicts{"CM-EXEC-01": report.Pass}, nil, true,
			report.Partial, []string{"run with an expected-failures baseline"}),
		Entry("fail, error and xpass fail the run", verdicts{"CM-EXEC-02": report.Fail, "CM-EXEC-01": report.Fail, "CM-LIM-01": report.Error, "CM-LIM-03": report.XPass, "CM-LIM-02": report.XFail}, nil, true,
			report.Failure, []string{"failing: CM-EXEC-01 CM-EXEC-02", "errors (harness fault or target crash): CM-LIM-01", "stale expected failures (xpass: they pass now): CM-LIM-03"}),
		Entry("a suite error fails the run", verdicts{"CM-EXEC-01": report.Pass}, []string{"[BeforeSuite] no target"}, false,
			report.Failure, []string{"suite error: [BeforeSuite] no target"}),
		Entry("no spec ran is a failure", verdicts{}, nil, false, report.Failure, []string{"no spec ran"}),
	)
})

var _ = Describe("NewConformance", func() {
	It("lists the requirements that ran, in requirements.yaml order, with totals and short messages", func() {
		long := spec("CM-LIM-03", "a", "failed")
		long.Message = "expected\n\n   something " + strings.Repeat("x", 400)
		ev := report.Evaluate([]report.SpecResult{long, spec("CM-EXEC-01", "a", "passed"), crashed(spec("CM-LIM-01", "a", "failed"))},
			baseline("requirements: [{id: CM-LIM-03, reason: not yet}]"))
		c := report.NewConformance(ev, nil, baseline("requirements: [CM-LIM-03]"))
		Expect(cmp.Diff(report.Totals{Pass: 1, XFail: 1, Error: 1}, c.Totals)).To(BeEmpty())
		Expect(c.Overall).To(Equal(report.Failure))
		var ids []string
		for _, r := range c.Requirements {
			ids = append(ids, r.ID+"="+string(r.Verdict))
		}
		Expect(cmp.Diff([]string{"CM-EXEC-01=pass", "CM-LIM-01=error", "CM-LIM-03=xfail"}, ids)).To(BeEmpty())
		Expect(c.Requirements[1].Specs[0].Message).To(HavePrefix("target connection lost during tool.exec — boom"))
		Expect(c.Requirements[2].Specs[0].Message).To(HavePrefix("expected something xxx"))
		Expect(len([]rune(c.Requirements[2].Specs[0].Message))).To(BeNumerically("<=", 301))
		Expect(c.ExpectedFailures).NotTo(BeNil())
		y, err := c.YAML()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(y)).To(ContainSubstring("overall: failure"))
	})

	It("replaces pointer addresses in messages, so that the report is the same from run to run", func() {
		s := spec("CM-LIM-03", "a", "failed")
		s.Message = "Unexpected error: <*fmt.wrapError | 0xc000123456>: boom {err: <*net.OpError | 0x336a8d0960a0>{Op: \"dial\"}} at 0x10"
		c := report.NewConformance(report.Evaluate([]report.SpecResult{s}, nil), nil, nil)
		Expect(c.Requirements[0].Specs[0].Message).To(Equal("Unexpected error: <*fmt.wrapError | 0x…>: boom {err: <*net.OpError | 0x…>{Op: \"dial\"}} at 0x10"))
		Expect(report.Short("a\n  <*T | 0xc000abcdef>")).To(Equal("a <*T | 0x…>"))
	})
})

var _ = Describe("the catalogue in the reports", func() {
	It("names the catalogue version and counts verdicts per basis (a requirement with two bases counts in both)", func() {
		// CM-CFG-01: seed; CM-CFG-05: seed + openclaw-source; CM-LIM-04: hardening.
		for id, want := range map[string][]string{"CM-CFG-01": {"seed"}, "CM-CFG-05": {"seed", "openclaw-source"}, "CM-LIM-04": {"hardening"}} {
			r, ok := specs.Lookup(id)
			Expect(ok && cmp.Equal(r.Basis, want)).To(BeTrue(), "the test's premise: %s has basis %v, got %v", id, want, r.Basis)
		}
		ev := report.Evaluate([]report.SpecResult{spec("CM-CFG-01", "a", "passed"), spec("CM-CFG-05", "a", "failed"), spec("CM-LIM-04", "a", "skipped")}, nil)
		c := report.NewConformance(ev, nil, nil)
		Expect(c.Catalogue.Version).To(Equal(specs.Version()), "the report names the embedded catalogue's version")
		Expect(cmp.Diff(map[string]report.Totals{
			"seed":            {Pass: 1, Fail: 1},
			"openclaw-source": {Fail: 1},
			"hardening":       {Skip: 1},
		}, c.Catalogue.Basis)).To(BeEmpty(), "verdicts per basis")
		Expect(c.Catalogue.BasisLine()).To(Equal("seed 1 pass, 1 fail; openclaw-source 1 fail; hardening 1 skip"))
		Expect(c.Catalogue.Line()).To(HavePrefix(fmt.Sprintf("version %d; ", specs.Version())))
		y, err := c.YAML()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(y)).To(ContainSubstring(fmt.Sprintf("catalogue:\n  version: %d\n", specs.Version())), "conformance-report.yaml names the version:\n%s", y)
		Expect(string(y)).To(ContainSubstring("basis: [seed, openclaw-source]"), "each requirement line carries its basis:\n%s", y)
		Expect(report.Markdown("builtin", "ref 1.0", nil)).To(ContainSubstring(fmt.Sprintf("Requirement catalogue: version %d ", specs.Version())), "summary.md names the version")
	})
})

var _ = Describe("Markdown", func() {
	It("names the implementation, or says why there is none, never an empty ()", func() {
		Expect(report.Markdown("builtin", "ref 1.0", nil)).To(ContainSubstring("Target: `builtin` (ref 1.0)\n"))
		Expect(report.Markdown("tcp:x:1", "initialize failed", nil)).To(ContainSubstring("Target: `tcp:x:1` (initialize failed)\n"))
		Expect(report.Markdown("tcp:x:1", "", nil)).To(ContainSubstring("Target: `tcp:x:1`\n"))
	})
})

var _ = Describe("ParseBaseline", func() {
	It("accepts bare entries and entries with reasons", func() {
		b := baseline("requirements:\n  - CM-LIM-03\n  - id: CM-EXEC-08\n    reason: later\nspecs:\n  - \"CM-RUN-01 anything\"\n  - name: CM-RUN-02 x\n    reason: flaky\n")
		Expect(cmp.Diff(&report.Baseline{
			Requirements: []report.ExpectedRequirement{{ID: "CM-LIM-03"}, {ID: "CM-EXEC-08", Reason: "later"}},
			Specs:        []report.ExpectedSpec{{Name: "CM-RUN-01 anything"}, {Name: "CM-RUN-02 x", Reason: "flaky"}},
		}, b)).To(BeEmpty())
	})
	DescribeTable("rejects a malformed file with a precise message",
		func(src, msg string) {
			_, err := report.ParseBaseline([]byte(src))
			Expect(err).To(MatchError(ContainSubstring(msg)))
		},
		Entry("unknown requirement ID", "requirements: [CM-LIM-03, CM-NOPE-99]", `requirements[1]: unknown requirement ID "CM-NOPE-99"`),
		Entry("spec name without an ID", "specs: [\"output beyond maxOutputBytes\"]", `specs[0]: spec name "output beyond maxOutputBytes" does not contain a known requirement ID`),
		Entry("unknown top-level key", "requirement: [CM-LIM-03]", "not a valid file"),
		Entry("unknown entry key", "requirements: [{id: CM-LIM-03, why: x}]", "not a valid file"),
		Entry("not a list", "requirements: CM-LIM-03", "not a valid file"),
		Entry("broken YAML", "requirements: [CM-LIM-03", "not a valid file"),
		Entry("empty entry", "requirements: [{reason: x}]", "requirements[0]: empty requirement ID"),
		Entry("flaky without a reason", "specs: [{name: CM-LIM-01 a, flaky: true}]", `specs[0]: "CM-LIM-01 a" is flaky: true without a reason`),
		Entry("flaky on a requirement entry (only specs can be flaky)", "requirements: [{id: CM-LIM-01, flaky: true, reason: x}]", "not a valid file"),
	)
})

var _ = Describe("Summarize and Failing", func() {
	It("count xfail and xpass and list what fails the run", func() {
		v := map[string]report.Verdict{"CM-LIM-01": report.Pass, "CM-LIM-02": report.XFail, "CM-LIM-03": report.XPass, "CM-LIM-05": report.Error, "CM-EXEC-01": report.Fail}
		for _, a := range report.Summarize(v) {
			if a.Area == "LIM" {
				Expect(cmp.Diff([]int{1, 0, 1, 1, 1}, []int{a.Pass, a.Fail, a.XFail, a.XPass, a.Error})).To(BeEmpty())
				Expect(a.Failing).To(Equal([]string{"CM-LIM-03", "CM-LIM-05"}))
			}
		}
		Expect(report.Failing(v)).To(Equal([]string{"CM-EXEC-01", "CM-LIM-03", "CM-LIM-05"}))
	})
})
