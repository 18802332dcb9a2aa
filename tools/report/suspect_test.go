package report_test

import (
	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/codemode-conformance/codemode/tools/report"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

var _ = Describe("suspected wrongly owned preconditions", func() {
	// blockedBy is a spec stopped by framework.Blocked(by, …).
	blockedBy := func(id, text, by string) report.SpecResult {
		b := evidence.Blocked{By: by, Message: "a cell holding 4 MiB must suspend"}
		return report.Spec(types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: id + " " + text, LeafNodeLabels: []string{"req:" + id},
			State: types.SpecStateSkipped, Failure: types.Failure{Message: b.String()},
			ReportEntries: types.ReportEntries{{Name: evidence.BlockedEntry, Value: types.WrapEntryValue(b)}}})
	}

	It("flags a spec blocked by a requirement that passed in the same run, and no other block", func() {
		ev := report.Evaluate([]report.SpecResult{
			blockedBy("CM-EXEC-08", "megabytes", "CM-EXEC-17"), spec("CM-EXEC-08", "small", "passed"),
			spec("CM-EXEC-17", "a", "passed"),
			blockedBy("CM-SEC-05", "a", "CM-EXEC-05"), spec("CM-EXEC-05", "a", "failed"), // the blocker failed: the block is explained
			blockedBy("CM-RUN-06", "a", "CM-EXEC-09"), // the blocker did not run
			blockedBy("CM-EXEC-19", "a", "CM-RUN-06"), // the blocker is itself blocked
		}, nil)
		got := report.SuspectPreconditions(ev)
		Expect(got).To(Equal([]report.SuspectPrecondition{{Requirement: "CM-EXEC-08", Spec: "CM-EXEC-08 megabytes", BlockedBy: "CM-EXEC-17"}}))

		c := report.NewConformance(ev, nil, nil)
		Expect(c.SuspectPreconditions).To(Equal(got), "the report carries them")
		y, err := c.YAML()
		Expect(err).NotTo(HaveOccurred(), "the report renders")
		Expect(string(y)).To(ContainSubstring("suspectPreconditions:\n- requirement: CM-EXEC-08\n  spec: CM-EXEC-08 megabytes\n  blockedBy: CM-EXEC-17\n"), "conformance-report.yaml lists the suspect:\n%s", y)

		md := report.SuspectMarkdown(c.SuspectPreconditions)
		Expect(md).To(ContainSubstring("- warning: CM-EXEC-08 is blocked by CM-EXEC-17, which passed in this run: suspected wrongly owned precondition"), "summary.md and the console warn")
		Expect(md).NotTo(ContainSubstring("CM-SEC-05"), "a block whose owner failed is no suspect")
	})

	It("counts an xpass blocker as passed and is empty without suspects", func() {
		ev := report.Evaluate([]report.SpecResult{blockedBy("CM-EXEC-08", "megabytes", "CM-EXEC-17"), spec("CM-EXEC-17", "a", "passed")},
			baseline("requirements: [CM-EXEC-17]\n"))
		Expect(ev.Requirements["CM-EXEC-17"]).To(Equal(report.XPass), "the listed blocker passed")
		Expect(report.SuspectPreconditions(ev)).To(HaveLen(1), "an xpass blocker passed too")

		none := report.Evaluate([]report.SpecResult{spec("CM-EXEC-17", "a", "passed")}, nil)
		Expect(report.SuspectPreconditions(none)).To(BeEmpty())
		Expect(report.SuspectMarkdown(nil)).To(BeEmpty(), "no section without suspects")
		y, err := report.NewConformance(none, nil, nil).YAML()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(y)).NotTo(ContainSubstring("suspectPreconditions"), "no field without suspects")
	})
})
