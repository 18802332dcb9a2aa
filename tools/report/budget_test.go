package report_test

import (
	"strings"

	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/codemode-conformance/codemode/tools/report"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

var _ = Describe("a report's budget of target bytes (issue 28 N8)", func() {
	It("keeps strings while they fit, then leaves out each longer one with a marker, keeping short ones", func() {
		b := report.NewBudget(1000)
		long := strings.Repeat("x", 600)
		Expect(b.Take(long)).To(Equal(long))
		got := b.Take(long)
		Expect(report.IsLeftOut(got)).To(BeTrue())
		Expect(got).To(ContainSubstring("left out: 600 bytes"))
		Expect(b.Take("CM-EXEC-01")).To(Equal("CM-EXEC-01"), "short strings stay")
		Expect(report.IsLeftOut(b.Take(strings.Repeat("y", 300)))).To(BeTrue(), "spent: a later string that would fit is left out too")
		Expect(b.LeftOut).To(Equal(2))
	})

	It("charges messages before evidence, and keeps the structure of the entries a verdict is read from", func() {
		big := strings.Repeat("B", 5000)
		blocked := types.WrapEntryValue(evidence.Blocked{By: "CM-EXEC-01", Message: big})
		spec := func(msg string) types.SpecReport {
			return types.SpecReport{LeafNodeType: types.NodeTypeIt, State: types.SpecStateFailed, Failure: types.Failure{Message: msg},
				ReportEntries: types.ReportEntries{{Name: "evidence", Value: types.WrapEntryValue(map[string]any{"result": big})}, {Name: evidence.BlockedEntry, Value: blocked}}}
		}
		r := types.Report{SpecReports: types.SpecReports{spec(big), spec(big)}}
		out := report.BudgetReport(r, report.NewBudget(12000))
		Expect(out.SpecReports[0].Failure.Message).To(Equal(big))
		Expect(out.SpecReports[1].Failure.Message).To(Equal(big), "both messages are charged before any evidence")
		r.SpecReports = append(r.SpecReports, spec(evidence.BlockedPrefix+"CM-EXEC-01: "+big))
		out = report.BudgetReport(r, report.NewBudget(12000))
		Expect(out.SpecReports[2].Failure.Message).To(HavePrefix(evidence.BlockedPrefix+"CM-EXEC-01: "), "a message left out keeps its head")
		Expect(report.IsLeftOut(out.SpecReports[2].Failure.Message)).To(BeTrue())
		var bl evidence.Blocked
		for _, s := range out.SpecReports {
			Expect(evidence.Decode(s.ReportEntries[1].Value, &bl)).To(Succeed())
			Expect(bl.By).To(Equal("CM-EXEC-01"))
		}
		Expect(report.IsLeftOut(out.SpecReports[1].ReportEntries[0].Value.String())).To(BeTrue(), "a later entry is one marker")
		Expect(r.SpecReports[0].ReportEntries[0].Value.String()).NotTo(ContainSubstring("left out"), "r is not changed")
	})
})
