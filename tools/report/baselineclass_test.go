package report_test

import (
	"os"
	"path/filepath"

	"github.com/codemode-conformance/codemode/tools/report"
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
		files, err := filepath.Glob("../../reports/*/expected-failures.yaml")
		Expect(err).NotTo(HaveOccurred(), "globbing the committed baselines")
		Expect(files).NotTo(BeEmpty(), "the committed baselines are found")
		for _, f := range files {
			data, err := os.ReadFile(f)
			Expect(err).NotTo(HaveOccurred(), "reading %s", f)
			b, err := report.ParseBaseline(data)
			Expect(err).NotTo(HaveOccurred(), "%s parses", f)
			for _, r := range b.Requirements {
				Expect(r.Class).NotTo(BeEmpty(), "%s: requirement entry %s has a class (deviation, decision or untriaged)", f, r.ID)
			}
			for _, s := range b.Specs {
				Expect(s.Class).NotTo(BeEmpty(), "%s: spec entry %q has a class (deviation, decision or untriaged)", f, s.Name)
			}
		}
	})
})
