package report_test

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"

	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/codemode-conformance/codemode/tools/report"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

var _ = Describe("blocked", func() {
	// blockedReport is a spec stopped by framework.Blocked: skipped, with
	// the typed entry and the message "blocked by <by>: …".
	blockedReport := func(id, text, by string) types.SpecReport {
		b := evidence.Blocked{By: by, Message: "the probe cell did not complete"}
		return types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: id + " " + text, LeafNodeLabels: []string{"req:" + id},
			State: types.SpecStateSkipped, Failure: types.Failure{Message: b.String()},
			ReportEntries: types.ReportEntries{{Name: evidence.BlockedEntry, Value: types.WrapEntryValue(b)}}}
	}
	blocked := func(id, text, by string) report.SpecResult { return report.Spec(blockedReport(id, text, by)) }

	It("reads the typed entry, not the message, and a failure recorded after the block wins", func() {
		s := blocked("CM-SEC-05", "a", "CM-EXEC-01")
		Expect(s.Outcome()).To(Equal(report.Blocked), "a skip with the blocked entry is blocked")
		Expect(s.BlockedBy).To(Equal("CM-EXEC-01"), "the entry names the blocking requirement")
		lookalike := spec("CM-SEC-05", "a", "skipped")
		lookalike.Message = "blocked by CM-EXEC-01: free text"
		Expect(lookalike.Outcome()).To(Equal(report.Skip), "a skip message that merely reads like a block is a skip")

		r := blockedReport("CM-SEC-05", "a", "CM-EXEC-01")
		r.AdditionalFailures = []types.AdditionalFailure{{State: types.SpecStateFailed, Failure: types.Failure{Message: "the target died during this spec"}}}
		Expect(report.Spec(r).Outcome()).To(Equal(report.Fail), "a cleanup's failure after the block is the verdict")
		Expect(report.Spec(r).Message).To(ContainSubstring("the target died"), "the failure's message is kept")
	})

	It("rolls up to the requirement unless one of its specs fails, and counts apart", func() {
		ev := report.Evaluate([]report.SpecResult{
			spec("CM-SEC-05", "a", "passed"), blocked("CM-SEC-05", "b", "CM-EXEC-01"),
			blocked("CM-SEC-01", "a", "CM-EXEC-06"), blocked("CM-SEC-01", "b", "CM-EXEC-01"),
			blocked("CM-SEC-03", "a", "CM-EXEC-01"), spec("CM-SEC-03", "b", "failed"),
			spec("CM-EXEC-01", "a", "passed"),
		}, nil)
		Expect(ev.Requirements).To(Equal(map[string]report.Verdict{"CM-SEC-05": report.Blocked, "CM-SEC-01": report.Blocked, "CM-SEC-03": report.Fail, "CM-EXEC-01": report.Pass}))
		Expect(ev.BlockedBy["CM-SEC-01"]).To(Equal([]string{"CM-EXEC-01", "CM-EXEC-06"}), "every blocker, sorted")
		Expect(ev.BlockedBy).NotTo(HaveKey("CM-SEC-03"), "a failing requirement is not blocked")
		c := report.NewConformance(ev, nil, nil)
		Expect(c.Totals.Blocked).To(Equal(2), "counted apart")
		Expect(c.Overall).To(Equal(report.Failure), "CM-SEC-03 fails")

		y, err := c.YAML()
		Expect(err).NotTo(HaveOccurred(), "the report renders")
		Expect(string(y)).To(ContainSubstring("verdict: blocked"), "conformance-report.yaml has the verdict")
		Expect(string(y)).To(ContainSubstring("blockedBy: [CM-EXEC-01, CM-EXEC-06]"), "and its blockers")
		Expect(string(y)).To(ContainSubstring("blocked: 2"), "and the total")

		md := report.Markdown("builtin", "", report.Summarize(ev.Requirements))
		Expect(md).To(ContainSubstring("| xpass | blocked | skip |"), "summary.md has a blocked column")
		Expect(md).To(ContainSubstring("| **total** | | 1 | 1 | 0 | 0 | 0 | 2 | 0 |"), "the total counts blocked apart")
		Expect(c.BlockedMarkdown()).To(ContainSubstring("- CM-SEC-01: blocked by CM-EXEC-01 CM-EXEC-06 (the probe cell did not complete)"), "summary.md lists each blocked requirement")
	})

	It("keeps a run with a blocked requirement at partial, and fails one that judged nothing", func() {
		c := report.NewConformance(report.Evaluate([]report.SpecResult{spec("CM-EXEC-01", "a", "passed"), blocked("CM-SEC-05", "a", "CM-EXEC-01")}, nil), nil, nil)
		Expect(c.Overall).To(Equal(report.Partial), "blocked is never success")
		Expect(strings.Join(c.Reasons, "\n")).To(ContainSubstring("blocked (a precondition owned by another requirement failed; not judged): CM-SEC-05"), "the reason names it")
		c = report.NewConformance(report.Evaluate([]report.SpecResult{blocked("CM-SEC-05", "a", "CM-EXEC-01")}, nil), nil, nil)
		Expect(c.Overall).To(Equal(report.Failure), "a run whose every requirement is blocked judged nothing")
	})

	It("cannot be baselined: an entry listing a blocked or skipped verdict is a baseline error, never an xfail", func() {
		specs := []report.SpecResult{blocked("CM-SEC-05", "a", "CM-EXEC-01"), blocked("CM-SEC-01", "a", "CM-EXEC-01"), spec("CM-TEL-01", "a", "skipped"), spec("CM-EXEC-01", "a", "failed")}
		ev := report.Evaluate(specs, baseline("requirements: [CM-SEC-01, CM-EXEC-01]\nspecs: [CM-SEC-05 a, CM-TEL-01 a]"))
		Expect(ev.Specs[0].Verdict).To(Equal(report.Blocked), "the verdict stays blocked")
		Expect(ev.Requirements["CM-EXEC-01"]).To(Equal(report.XFail), "control: a listed failure is an xfail")
		Expect(ev.BaselineErrors).To(HaveLen(3), "the spec entries of CM-SEC-05 and CM-TEL-01 and the requirement entry CM-SEC-01: %v", ev.BaselineErrors)
		Expect(strings.Join(ev.BaselineErrors, "\n")).To(And(ContainSubstring(`"CM-SEC-05 a": its verdict is blocked by CM-EXEC-01`), ContainSubstring("entry CM-SEC-01: its verdict is blocked by CM-EXEC-01"), ContainSubstring(`"CM-TEL-01 a": its verdict is skip`)))
		c := report.NewConformance(ev, nil, baseline("specs: [CM-SEC-05 a]"))
		Expect(c.Overall).To(Equal(report.Failure), "a baseline error fails the run")
		Expect(c.ExpectedFailures.Errors).To(HaveLen(3), "conformance-report.yaml lists them")
	})

	It("is a skipped testcase with its reason and verdict=blocked in junit.xml, and a section of report.html", func() {
		r := types.Report{SuiteDescription: "codemode conformance", SpecReports: types.SpecReports{
			blockedReport("CM-SEC-05", "a", "CM-EXEC-01"), blockedReport("CM-SEC-01", "a", "CM-EXEC-06"),
		}}
		ev := report.Evaluate(report.Specs(r), baseline("specs: [CM-SEC-01 a]"))
		dir := GinkgoT().TempDir()
		Expect(report.WriteJUnit(r, ev, filepath.Join(dir, "junit.xml"))).To(Succeed())
		data, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
		Expect(err).NotTo(HaveOccurred(), "junit.xml is written")
		var doc junitDoc
		Expect(xml.Unmarshal(data, &doc)).To(Succeed(), "junit.xml parses")
		cases := map[string]reporters.JUnitTestCase{}
		for _, tc := range doc.TestSuites[0].TestCases {
			cases[tc.Properties.WithName("requirement")] = tc
		}
		b := cases["CM-SEC-05"]
		Expect(b.Skipped).NotTo(BeNil(), "a blocked spec is skipped: not judged")
		Expect(b.Skipped.Message).To(Equal("blocked by CM-EXEC-01: the probe cell did not complete"), "with its reason")
		Expect(b.Status).To(Equal("blocked"), "status is the verdict")
		Expect(b.Properties.WithName("verdict")).To(Equal("blocked"), "and so is the property")
		listed := cases["CM-SEC-01"]
		Expect(listed.Failure).NotTo(BeNil(), "a baselined blocked spec fails the run")
		Expect(listed.Failure.Type).To(Equal("baseline-error"), "as a baseline error")

		path := filepath.Join(dir, "report.html")
		Expect(report.WriteHTML(r, ev, report.NewConformance(ev, nil, nil), path)).To(Succeed())
		html, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred(), "report.html is written")
		Expect(string(html)).To(And(ContainSubstring("Blocked, not judged (blocked: 1)"), ContainSubstring("blocked by CM-EXEC-01"), ContainSubstring("<th>blocked</th>")), "report.html shows blocked apart")
		Expect(string(html)).To(ContainSubstring("Baseline error: listed in the expected-failures baseline"), "and the baseline error among the failing specs")
	})
})
