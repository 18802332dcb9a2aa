package report

import (
	"fmt"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/onsi/ginkgo/v2/types"
)

// Selection records what a run selected and how much of the catalogue that
// is: the overall verdict judges the selected specs only, so a report
// without it cannot tell a full run from a run of two requirements.
//
//	selection:
//	  req: [CM-EXEC-08, CM-RUN-01]   # --req, if given
//	  labelFilter: "area:LIM"        # --label-filter, if given
//	  complete: false                # every spec of this build was selected
//	  requirements:
//	    catalogue: 115               # in spec/requirements.yaml
//	    withSpecs: 70                # with at least one spec in this build
//	    selected: 2                  # with a spec the filters selected
//	    ran: 2                       # with a verdict in this run (the requirements: list)
//	  specs: {inBuild: 71, selected: 2, ran: 2}
//	  notRun:                        # catalogue − ran, by cause (summary.md's "not run" column)
//	    noSpec: 43                   # no spec yet (planned, or a SHOULD without one; see CONFORMANCE.md)
//	    excluded: 1                  # not observable from outside (excluded: in requirements.yaml)
//	    filteredOut: 68              # has specs, none selected by --req / --label-filter
//	    notReached: 0                # selected, but the suite stopped first (e.g. the target could not be connected)
//	    coreNoSpec: [CM-EXEC-15]     # core MUST requirements with no spec yet (not judged by overall)
type Selection struct {
	Req          []string          `yaml:"req,omitempty"`
	LabelFilter  string            `yaml:"labelFilter,omitempty"`
	Complete     bool              `yaml:"complete"`
	Requirements RequirementCounts `yaml:"requirements"`
	Specs        SpecCounts        `yaml:"specs"`
	NotRun       NotRun            `yaml:"notRun"`
}

// RequirementCounts counts requirements in the catalogue, in the build, in
// the selection and in the run.
type RequirementCounts struct {
	Catalogue int `yaml:"catalogue"`
	WithSpecs int `yaml:"withSpecs"`
	Selected  int `yaml:"selected"`
	Ran       int `yaml:"ran"`
}

// SpecCounts counts specs in the build, in the selection and in the run.
type SpecCounts struct {
	InBuild  int `yaml:"inBuild"`
	Selected int `yaml:"selected"`
	Ran      int `yaml:"ran"`
}

// NotRun splits the requirements without a verdict by cause.
type NotRun struct {
	NoSpec      int `yaml:"noSpec"`
	Excluded    int `yaml:"excluded"`
	FilteredOut int `yaml:"filteredOut"`
	NotReached  int `yaml:"notReached"`
	// CoreNoSpec lists core MUST requirements that have no spec yet: the
	// overall verdict cannot see them, so reports name them.
	CoreNoSpec []string `yaml:"coreNoSpec,omitempty"`
}

// Total is the number of requirements without a verdict.
func (n NotRun) Total() int { return n.NoSpec + n.Excluded + n.FilteredOut + n.NotReached }

// BuiltSpec is one spec of the build: its requirement and whether the run's
// filters selected it.
type BuiltSpec struct {
	Requirement string `json:"requirement"`
	Selected    bool   `json:"selected"`
}

// Inventory lists every It of a report (best from ginkgo.PreviewSpecs: a
// run's report leaves specs out when BeforeSuite fails) and applies the
// run's label filter to each (nil: everything is selected).
func Inventory(r types.Report, filter types.LabelFilter) []BuiltSpec {
	var out []BuiltSpec
	for _, s := range r.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt {
			continue
		}
		out = append(out, BuiltSpec{Requirement: RequirementOf(s.Labels()), Selected: filter == nil || filter(s.Labels())})
	}
	return out
}

// NewSelection counts the catalogue, the build (built, from Inventory) and
// the run (ev) and records the filters: req (--req) and labelFilter
// (--label-filter) as given.
func NewSelection(built []BuiltSpec, ev Evaluation, req []string, labelFilter string) Selection {
	s := Selection{Req: req, LabelFilter: labelFilter}
	withSpecs, selected := map[string]bool{}, map[string]bool{}
	for _, b := range built {
		s.Specs.InBuild++
		withSpecs[b.Requirement] = true
		if b.Selected {
			s.Specs.Selected++
			selected[b.Requirement] = true
		}
	}
	s.Specs.Ran = len(ev.Specs)
	s.Complete = s.Specs.Selected == s.Specs.InBuild
	for _, r := range spec.Requirements() {
		s.Requirements.Catalogue++
		if withSpecs[r.ID] {
			s.Requirements.WithSpecs++
		}
		if selected[r.ID] {
			s.Requirements.Selected++
		}
		_, ran := ev.Requirements[r.ID]
		switch {
		case ran:
			s.Requirements.Ran++
		case selected[r.ID]:
			s.NotRun.NotReached++
		case withSpecs[r.ID]:
			s.NotRun.FilteredOut++
		case r.Excluded != "":
			s.NotRun.Excluded++
		default:
			s.NotRun.NoSpec++
			if r.Feature == spec.FeatureCore && r.Level == spec.LevelMust {
				s.NotRun.CoreNoSpec = append(s.NotRun.CoreNoSpec, r.ID)
			}
		}
	}
	return s
}

// Filters renders the selection's filters as command-line flags, or "" when
// there are none.
func (s Selection) Filters() string {
	var parts []string
	for _, id := range s.Req {
		parts = append(parts, "--req "+id)
	}
	if s.LabelFilter != "" {
		parts = append(parts, fmt.Sprintf("--label-filter %q", s.LabelFilter))
	}
	return strings.Join(parts, " ")
}

// Describe says in one line what the run selected and that the overall
// verdict judges that selection only.
func (s Selection) Describe() string {
	if s.Complete {
		return fmt.Sprintf("Selection: every spec of this build (%d specs of %d requirements).", s.Specs.InBuild, s.Requirements.WithSpecs)
	}
	return fmt.Sprintf("Selection: %s: %d of %d specs, %d of %d requirements with specs. The overall verdict judges these only.",
		s.Filters(), s.Specs.Selected, s.Specs.InBuild, s.Requirements.Selected, s.Requirements.WithSpecs)
}

// NotRunLine explains the "not run" column of summary.md, e.g. "45
// requirements not tested by this run: 44 have no spec yet (see
// CONFORMANCE.md), 1 excluded …"; "" when every requirement has a verdict.
func (s Selection) NotRunLine() string {
	n := s.NotRun
	if n.Total() == 0 {
		return ""
	}
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{
		{n.NoSpec, "%d %s no spec yet (see CONFORMANCE.md)"},
		{n.Excluded, "%d excluded (not observable from outside)"},
		{n.FilteredOut, "%d filtered out by the selection"},
		{n.NotReached, "%d selected but not reached (the suite stopped first)"},
	} {
		if p.n == 0 {
			continue
		}
		if strings.Count(p.what, "%") == 2 {
			parts = append(parts, fmt.Sprintf(p.what, p.n, plural(p.n, "has", "have")))
		} else {
			parts = append(parts, fmt.Sprintf(p.what, p.n))
		}
	}
	line := fmt.Sprintf("%d %s not tested by this run (the \"not run\" column): %s.", n.Total(), plural(n.Total(), "requirement", "requirements"), strings.Join(parts, ", "))
	if len(n.CoreNoSpec) > 0 {
		line += fmt.Sprintf(" Core MUST requirements without a spec yet, so not judged by the overall verdict: %s.", strings.Join(n.CoreNoSpec, ", "))
	}
	return line
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
