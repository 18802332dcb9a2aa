package report_test

import (
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

var _ = Describe("self-reported evidence", func() {
	trusted := "liveVMs = 0 while the cell waits (runtime.stats)"
	selfReported := func(s report.SpecResult) report.SpecResult {
		s.SelfReported = trusted
		return s
	}

	It("is read from the spec's self-reported report entry", func() {
		r := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: "CM-RUN-01 x", State: types.SpecStatePassed,
			ReportEntries: types.ReportEntries{{Name: report.SelfReportedEntry, Value: types.WrapEntryValue(trusted)}}}
		Expect(report.Spec(r).SelfReported).To(Equal(trusted), "the entry's value says what was trusted")
		r.ReportEntries = nil
		Expect(report.Spec(r).SelfReported).To(BeEmpty(), "without the entry the evidence is behaviour")
	})

	It("marks a passing requirement pass (self-reported) in conformance-report.yaml and summary.md, and nothing else", func() {
		specs := []report.SpecResult{
			selfReported(spec("CM-RUN-01", "stats", "passed")), spec("CM-RUN-01", "sizes", "passed"),
			selfReported(spec("CM-RUN-02", "stats", "failed")),
			spec("CM-RUN-04", "sizes", "passed"),
		}
		c := report.NewConformance(report.Evaluate(specs, nil), nil, nil)
		got := map[string][]string{}
		for _, r := range c.Requirements {
			got[r.ID] = r.SelfReported
		}
		Expect(cmp.Diff(map[string][]string{"CM-RUN-01": {trusted}, "CM-RUN-02": nil, "CM-RUN-04": nil}, got)).To(BeEmpty(),
			"only a passing requirement is self-reported; a failing one is just failing")
		Expect(c.Requirements[0].Verdict).To(Equal(report.Pass), "the verdict stays pass: the note says what it rests on")
		Expect(c.Requirements[0].Specs[0].SelfReported).To(Equal(trusted))
		y, err := c.YAML()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(y)).To(ContainSubstring("selfReported:"), "conformance-report.yaml names what was trusted")
		Expect(c.SelfReportedMarkdown()).To(ContainSubstring("- CM-RUN-01: pass (self-reported): "+trusted), "summary.md shows the note")
		Expect(c.SelfReportedMarkdown()).NotTo(ContainSubstring("CM-RUN-02"))

		none := report.NewConformance(report.Evaluate([]report.SpecResult{spec("CM-RUN-04", "sizes", "passed")}, nil), nil, nil)
		Expect(none.SelfReportedMarkdown()).To(BeEmpty(), "no note when every pass rests on behaviour")
	})
})
