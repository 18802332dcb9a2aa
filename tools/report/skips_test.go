package report

import (
	"testing"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/onsi/gomega"
)

// The skipped requirements are grouped by why they ran nothing: outside the
// profile, an optional feature not declared, exempted, not drivable.
func TestSkipGroups(t *testing.T) {
	g := gomega.NewWithT(t)
	skip := func(id, feature, msg string) RequirementLine {
		return RequirementLine{ID: id, Feature: feature, Verdict: Skip, Specs: []SpecLine{{Verdict: Skip, Message: msg}}}
	}
	c := Conformance{
		Profile:  Profile{Name: "v1"},
		Features: Features{Effective: []string{"core"}, Exempt: []string{"isolation"}},
		Requirements: []RequirementLine{
			{ID: "CM-EXEC-01", Feature: "core", Verdict: Pass},
			skip("CM-RES-01", "results", "feature \"results\" is not part of profile v1"),
			skip("CM-STO-01", "session-store", "x"),
			skip("CM-NEST-11", "streaming", "feature \"streaming\" is not declared"),
			skip("CM-SEC-01", "isolation", "exempted"),
			skip("CM-RUN-01", "core", protocol.NotDrivablePrefix+"runtime.stats"),
		},
	}
	g.Expect(c.SkipLine()).To(gomega.Equal("5 requirements skipped: 2 outside profile v1 (features results, session-store); 1 optional feature not declared (feature streaming); 1 exempted by the user (feature isolation); 1 not drivable by the target"),
		"one line, by cause, with the features behind each")
	g.Expect(c.SkipCounts()).To(gomega.Equal("2 outside profile v1; 1 optional feature not declared; 1 exempted by the user; 1 not drivable by the target"), "the closing line's short form")
	g.Expect(Conformance{}.SkipLine()).To(gomega.BeEmpty(), "nothing skipped, nothing said")
}

// A requirement outside the profile by its own profiles: (CM-CFG-06 is
// profiles: [v1]) is not outside for its feature: core is in v2, so the
// line names no feature for it.
func TestSkipGroupsOwnProfiles(t *testing.T) {
	g := gomega.NewWithT(t)
	c := Conformance{
		Profile:  Profile{Name: "v2"},
		Features: Features{Effective: []string{"core", "results"}},
		Requirements: []RequirementLine{
			{ID: "CM-CFG-06", Feature: "core", Verdict: Skip, Specs: []SpecLine{{Verdict: Skip, Message: "requirement CM-CFG-06 is judged under profile v1 only"}}},
			{ID: "CM-TS-01", Feature: "typescript", Verdict: Skip, Specs: []SpecLine{{Verdict: Skip, Message: "feature \"typescript\" is not part of profile v2"}}},
		},
	}
	g.Expect(c.SkipLine()).To(gomega.Equal("2 requirements skipped: 2 outside profile v2 (feature typescript)"), "core is part of v2: CM-CFG-06 is outside by its own profiles:")
}
