package report_test

import (
	requirements "github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

var _ = Describe("Selection", func() {
	// catalogue counts spec/requirements.yaml and its excluded requirements.
	catalogue := func() (all, excluded int) {
		for _, r := range requirements.Requirements() {
			all++
			if r.Excluded != "" {
				excluded++
			}
		}
		return all, excluded
	}
	// A build with specs for four requirements; the run selected CM-EXEC-01
	// and CM-RUN-01, and only CM-EXEC-01's specs ran (the suite stopped).
	built := []report.BuiltSpec{
		{Requirement: "CM-EXEC-01", Selected: true}, {Requirement: "CM-EXEC-01", Selected: true},
		{Requirement: "CM-EXEC-02"}, {Requirement: "CM-LIM-03"}, {Requirement: "CM-RUN-01", Selected: true},
	}
	ev := report.Evaluate([]report.SpecResult{spec("CM-EXEC-01", "a", "passed"), spec("CM-EXEC-01", "b", "skipped")}, nil)

	It("counts the catalogue, the build, the selection and the run, and splits what did not run by cause", func() {
		all, excluded := catalogue()
		Expect(excluded).To(BeNumerically(">", 0), "requirements.yaml excludes at least one requirement")
		var coreNoSpec []string // core MUSTs outside the four with specs, not excluded
		for _, r := range requirements.Requirements() {
			switch r.ID {
			case "CM-EXEC-01", "CM-EXEC-02", "CM-LIM-03", "CM-RUN-01":
				continue
			}
			if r.Feature == "core" && r.Level == requirements.LevelMust && r.Excluded == "" {
				coreNoSpec = append(coreNoSpec, r.ID)
			}
		}
		s := report.NewSelection(built, ev, []string{"CM-EXEC-01", "CM-RUN-01"}, "area:EXEC || area:RUN")
		Expect(cmp.Diff(report.Selection{
			Req:          []string{"CM-EXEC-01", "CM-RUN-01"},
			LabelFilter:  "area:EXEC || area:RUN",
			Requirements: report.RequirementCounts{Catalogue: all, WithSpecs: 4, Selected: 2, Ran: 1},
			Specs:        report.SpecCounts{InBuild: 5, Selected: 3, Ran: 2},
			NotRun:       report.NotRun{NoSpec: all - 4 - excluded, Excluded: excluded, FilteredOut: 2, NotReached: 1, CoreNoSpec: coreNoSpec},
		}, s)).To(BeEmpty())
		Expect(s.NotRun.Total()).To(Equal(all-1), "every requirement without a verdict has one cause")
		Expect(s.Filters()).To(Equal(`--req CM-EXEC-01 --req CM-RUN-01 --label-filter "area:EXEC || area:RUN"`))
		Expect(s.Describe()).To(Equal(`Selection: --req CM-EXEC-01 --req CM-RUN-01 --label-filter "area:EXEC || area:RUN": 3 of 5 specs, 2 of 4 requirements with specs. The overall verdict judges these only.`))
		Expect(s.NotRunLine()).To(MatchRegexp(`^%d requirements not tested by this run \(the "not run" column\): %d have no spec yet \(see CONFORMANCE.md\), %d excluded \(not observable from outside\), 2 filtered out by the selection, 1 selected but not reached \(the suite stopped first\)\. Core MUST requirements without a spec yet, so not judged by the overall verdict: CM-CFG-01, .*\.$`,
			all-1, all-4-excluded, excluded))
	})

	It("is complete when every spec of the build was selected", func() {
		var every []report.BuiltSpec
		for _, b := range built {
			b.Selected = true
			every = append(every, b)
		}
		s := report.NewSelection(every, ev, nil, "")
		Expect(s.Complete).To(BeTrue())
		Expect(s.Filters()).To(BeEmpty())
		Expect(s.Describe()).To(Equal("Selection: every spec of this build (5 specs of 4 requirements)."))
	})

	It("renders as the selection: block of conformance-report.yaml", func() {
		c := report.NewConformance(ev, nil, nil)
		c.Selection = report.NewSelection(built, ev, []string{"CM-EXEC-01"}, "")
		y, err := c.YAML()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(y)).To(ContainSubstring("selection:\n  req:\n  - CM-EXEC-01\n  complete: false\n  requirements:\n"))
		Expect(string(y)).To(MatchRegexp(`(?m)^  notRun:\n    noSpec: \d+\n    excluded: \d+\n    filteredOut: 2\n    notReached: 1\n`))
	})

	It("takes the build from a report and applies the run's label filter to each spec", func() {
		it := func(id string) types.SpecReport {
			return types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: id + " x", LeafNodeLabels: []string{"req:" + id, "area:" + id[3:len(id)-3]}}
		}
		r := types.Report{SpecReports: types.SpecReports{{LeafNodeType: types.NodeTypeBeforeSuite}, it("CM-EXEC-01"), it("CM-LIM-03")}}
		filter, err := types.ParseLabelFilter("area:LIM")
		Expect(err).NotTo(HaveOccurred())
		Expect(report.Inventory(r, filter)).To(Equal([]report.BuiltSpec{{Requirement: "CM-EXEC-01"}, {Requirement: "CM-LIM-03", Selected: true}}))
		Expect(report.Inventory(r, nil)).To(Equal([]report.BuiltSpec{{Requirement: "CM-EXEC-01", Selected: true}, {Requirement: "CM-LIM-03", Selected: true}}))
	})
})
