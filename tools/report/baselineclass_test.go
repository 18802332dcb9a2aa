package report_test

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/goccy/go-yaml"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("baseline class", func() {
	It("accepts deviation and decision, and refuses not-drivable and unknown classes", func() {
		b := baseline("requirements:\n  - id: CM-EXEC-01\n    class: deviation\n    reason: r\nspecs:\n  - name: CM-EXEC-02 a\n    class: decision\n    note: n\n")
		Expect(b.Requirements[0].Class).To(Equal(report.ClassDeviation), "the requirement entry's class")
		Expect(b.Specs[0].Class).To(Equal(report.ClassDecision), "the spec entry's class")
		_, err := report.ParseBaseline([]byte("requirements:\n  - id: CM-EXEC-01\n    class: not-drivable\n"))
		Expect(err).To(MatchError(ContainSubstring("never an expected failure")), "not drivable is never an xfail")
		_, err = report.ParseBaseline([]byte("specs:\n  - name: CM-EXEC-01 a\n    class: oops\n"))
		Expect(err).To(MatchError(ContainSubstring(`unknown class "oops"`)), "an unknown class is an error")
	})

	It("is on every entry of the committed OpenClaw baselines", func() {
		for _, f := range committedBaselineFiles() {
			b := committedBaseline(f)
			for _, r := range b.Requirements {
				Expect(r.Class).NotTo(BeEmpty(), "%s: requirement entry %s has a class (deviation, decision or untriaged)", f, r.ID)
			}
			for _, s := range b.Specs {
				Expect(s.Class).NotTo(BeEmpty(), "%s: spec entry %q has a class (deviation, decision or untriaged)", f, s.Name)
			}
		}
	})
})

// Issue 24 item 6, on the committed reports: an entry of a committed
// baseline whose verdict in the committed report next to it is skip or
// blocked is a baseline error (the run would fail on it), and a spec the
// target cannot drive is skipped, never an expected failure.
var _ = Describe("the committed OpenClaw baselines against their reports", func() {
	It("list no skipped, not-drivable or blocked verdict, and no report has an xfail that is not drivable", func() {
		for _, f := range committedBaselineFiles() {
			b := committedBaseline(f)
			rf := filepath.Join(filepath.Dir(f), "conformance-report.yaml")
			data, err := os.ReadFile(rf)
			Expect(err).NotTo(HaveOccurred(), "every committed baseline has its committed report: %s", rf)
			var c report.Conformance
			Expect(yaml.Unmarshal(data, &c)).To(Succeed(), "%s parses", rf)
			reqs := map[string]report.RequirementLine{}
			specs := map[string]report.SpecLine{}
			for _, r := range c.Requirements {
				reqs[r.ID] = r
				for _, s := range r.Specs {
					specs[s.Name] = s
					Expect(s.Verdict == report.XFail && strings.HasPrefix(s.Message, protocol.NotDrivablePrefix)).To(BeFalse(), "%s: spec %q is not drivable, so skipped, never an expected failure", rf, s.Name)
				}
			}
			for _, e := range b.Requirements {
				r, ok := reqs[e.ID]
				if !ok {
					continue // not selected by that run (the quickjs report judges a selection)
				}
				Expect(r.Verdict).NotTo(BeElementOf(report.Skip, report.Blocked), "%s: requirement entry %s has verdict %s in %s: a skipped, not-drivable or blocked requirement cannot be an expected failure (remove the entry)", f, e.ID, r.Verdict, rf)
			}
			for _, e := range b.Specs {
				s, ok := specs[e.Name]
				if !ok {
					continue
				}
				Expect(s.Verdict).NotTo(BeElementOf(report.Skip, report.Blocked), "%s: spec entry %q has verdict %s in %s (%s): a skipped, not-drivable or blocked spec cannot be an expected failure (remove the entry)", f, e.Name, s.Verdict, rf, s.Message)
			}
		}
	})
})

// committedBaselineFiles are the paths of the committed OpenClaw baselines
// (reports/*/expected-failures.yaml), at least one.
func committedBaselineFiles() []string {
	GinkgoHelper()
	files, err := filepath.Glob("../../reports/*/expected-failures.yaml")
	Expect(err).NotTo(HaveOccurred(), "globbing the committed baselines")
	Expect(files).NotTo(BeEmpty(), "the committed baselines are found")
	return files
}

// committedBaseline reads and parses the baseline at path f.
func committedBaseline(f string) *report.Baseline {
	GinkgoHelper()
	data, err := os.ReadFile(f)
	Expect(err).NotTo(HaveOccurred(), "reading %s", f)
	b, err := report.ParseBaseline(data)
	Expect(err).NotTo(HaveOccurred(), "%s parses", f)
	return b
}
