package report_test

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"

	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

// junitDoc is junit.xml as WriteJUnit writes it.
type junitDoc struct {
	Tests      int                        `xml:"tests,attr"`
	Disabled   int                        `xml:"disabled,attr"`
	Skipped    int                        `xml:"skipped,attr"`
	Errors     int                        `xml:"errors,attr"`
	Failures   int                        `xml:"failures,attr"`
	TestSuites []reporters.JUnitTestSuite `xml:"testsuite"`
}

var _ = Describe("WriteJUnit", func() {
	it := func(id, text string, state types.SpecState, msg string) types.SpecReport {
		return types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: id + " " + text, LeafNodeLabels: []string{"req:" + id},
			State: state, Failure: types.Failure{Message: msg}}
	}
	write := func(r types.Report, b *report.Baseline) (junitDoc, map[string]reporters.JUnitTestCase) {
		GinkgoHelper()
		path := filepath.Join(GinkgoT().TempDir(), "junit.xml")
		Expect(report.WriteJUnit(r, report.Evaluate(report.Specs(r), b), path)).To(Succeed())
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		var doc junitDoc
		Expect(xml.Unmarshal(data, &doc)).To(Succeed())
		Expect(doc.TestSuites).To(HaveLen(1))
		cases := map[string]reporters.JUnitTestCase{}
		for _, tc := range doc.TestSuites[0].TestCases {
			cases[tc.Properties.WithName("requirement")] = tc
		}
		return doc, cases
	}

	r := types.Report{SuiteDescription: "codemode conformance", SpecReports: types.SpecReports{
		it("CM-LIM-03", "a", types.SpecStateFailed, "boom at <*T | 0xc000123456>"),
		it("CM-LIM-01", "a", types.SpecStatePassed, ""),
		it("CM-EXEC-01", "a", types.SpecStatePassed, ""),
		it("CM-EXEC-02", "a", types.SpecStateSkipped, `feature "yield" is not declared by the target`),
		it("CM-EXEC-03", "a", types.SpecStatePanicked, "panic"),
		it("CM-EXEC-04", "a", types.SpecStatePending, ""),
		it("CM-EXEC-05", "a", types.SpecStateSkipped, ""), // deselected: not in junit.xml
	}}

	It("writes an xpass as a failure (stale expected failure) and an xfail as skipped with its reason", func() {
		doc, cases := write(r, baseline("specs: [CM-LIM-03 a]\nrequirements: [{id: CM-LIM-01, reason: slow}]"))
		Expect(cases).To(HaveLen(6))

		xpass := cases["CM-LIM-01"]
		Expect(xpass.Failure).NotTo(BeNil(), "a listed requirement whose specs all pass fails the run, so its specs fail in junit.xml")
		Expect(xpass.Failure.Type).To(Equal("xpass"))
		Expect(xpass.Failure.Message).To(HavePrefix("stale expected failure: "))
		Expect(xpass.Failure.Message).To(ContainSubstring("(slow)"))
		Expect(xpass.Status).To(Equal("xpass"))
		Expect(xpass.Properties.WithName("verdict")).To(Equal("xpass"))

		xfail := cases["CM-LIM-03"]
		Expect(xfail.Failure).To(BeNil())
		Expect(xfail.Skipped).NotTo(BeNil())
		Expect(xfail.Skipped.Message).To(Equal("xfail: expected failure (listed): boom at <*T | 0x…>"))
		Expect(xfail.Status).To(Equal("xfail"))

		Expect(cases["CM-EXEC-01"].Failure).To(BeNil())
		Expect(cases["CM-EXEC-01"].Properties.WithName("verdict")).To(Equal("pass"))
		Expect(cases["CM-EXEC-03"].Error).NotTo(BeNil())
		Expect(cases["CM-EXEC-03"].Error.Type).To(Equal("error"))

		type counts struct{ Tests, Failures, Errors, Skipped, Disabled int }
		s := doc.TestSuites[0]
		Expect(cmp.Diff(counts{Tests: 6, Failures: 1, Errors: 1, Skipped: 2, Disabled: 1}, counts{s.Tests, s.Failures, s.Errors, s.Skipped, s.Disabled})).To(BeEmpty(),
			"testsuite: the xpass fails; the xfail and the feature skip are skipped; the pending spec is disabled")
		Expect(cmp.Diff(counts{s.Tests, s.Failures, s.Errors, s.Skipped, s.Disabled}, counts{doc.Tests, doc.Failures, doc.Errors, doc.Skipped, doc.Disabled})).To(BeEmpty(),
			"testsuites sums the testsuite counts under the same names")
	})

	It("keeps a spec listed by name that passes a failure, and a run without a baseline as Ginkgo states it", func() {
		_, cases := write(r, baseline("specs: [CM-EXEC-01 a]"))
		Expect(cases["CM-EXEC-01"].Failure).NotTo(BeNil())
		Expect(cases["CM-EXEC-01"].Failure.Message).To(HavePrefix("stale expected failure: "))

		doc, cases := write(r, nil)
		Expect(cases["CM-LIM-03"].Failure).NotTo(BeNil())
		Expect(cases["CM-LIM-03"].Failure.Type).To(Equal("failed"))
		Expect(cases["CM-LIM-01"].Failure).To(BeNil())
		Expect(strings.Join([]string{cases["CM-LIM-03"].Properties.WithName("verdict"), cases["CM-LIM-01"].Properties.WithName("verdict")}, " ")).To(Equal("fail pass"))
		Expect([]int{doc.Failures, doc.Errors, doc.Skipped, doc.Disabled}).To(Equal([]int{1, 1, 1, 1}))
	})

	It("carries paths relative to the checkout and the timeline of failing specs only", func() {
		root, err := filepath.Abs("../..")
		Expect(err).NotTo(HaveOccurred())
		at := func(line int) types.CodeLocation {
			return types.CodeLocation{FileName: filepath.Join(root, "suites", "codemode", "exec.go"), LineNumber: line}
		}
		failed := it("CM-LIM-03", "a", types.SpecStateFailed, "boom")
		failed.LeafNodeLocation, failed.Failure.Location = at(10), at(12)
		failed.CapturedGinkgoWriterOutput = "→ run.prepare (failing)"
		passed := it("CM-LIM-01", "a", types.SpecStatePassed, "")
		passed.LeafNodeLocation = at(20)
		passed.CapturedGinkgoWriterOutput = "→ run.prepare (passing)"
		path := filepath.Join(GinkgoT().TempDir(), "junit.xml")
		run := types.Report{SuiteDescription: "codemode conformance", SuitePath: root, SpecReports: types.SpecReports{failed, passed}}
		Expect(report.WriteJUnit(run, report.Evaluate(report.Specs(run), nil), path)).To(Succeed())
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).NotTo(ContainSubstring(root), "no absolute path of the checkout")
		Expect(string(data)).To(ContainSubstring(`package="."`), "the run's directory is .")
		Expect(string(data)).To(ContainSubstring("suites/codemode/exec.go:12"), "the failure's location, relative")
		Expect(string(data)).To(ContainSubstring("run.prepare (failing)"), "the failing spec keeps its log")
		Expect(string(data)).NotTo(ContainSubstring("run.prepare (passing)"), "the passing spec's log is report.json's")
	})
})
