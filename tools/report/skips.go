package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// SkipCause is why a requirement ran no spec that judged it.
type SkipCause string

const (
	// SkipOutsideProfile: its feature is not part of the judged profile
	// (a generation-2 feature under v1, say): nothing is missing.
	SkipOutsideProfile SkipCause = "outside the profile"
	// SkipNotDeclared: an optional feature of the profile the target does
	// not declare.
	SkipNotDeclared SkipCause = "optional feature not declared"
	// SkipExempted: a feature the user exempted (--exempt-features).
	SkipExempted SkipCause = "exempted by the user"
	// SkipNotDrivable: the target declared it cannot drive what the spec
	// needs (protocol.NotDrivablePrefix).
	SkipNotDrivable SkipCause = "not drivable by the target"
	// SkipOther: any other skip (a spec's own reason).
	SkipOther SkipCause = "other"
)

// skipCauses is the order the causes are listed in.
var skipCauses = []SkipCause{SkipOutsideProfile, SkipNotDeclared, SkipExempted, SkipNotDrivable, SkipOther}

// SkipGroup is the requirements skipped for one cause, and the features
// behind them (for the feature causes).
type SkipGroup struct {
	Cause        SkipCause
	Requirements []string
	Features     []string
}

// SkipGroups sorts the requirements whose verdict is skip by cause, from the
// requirement's feature, the judged profile and the user's exemptions, and
// for not drivable from the spec messages (issue 27: "34 requirements were
// skipped" read as if the reference were incomplete, when all 34 were
// generation-2 features outside profile v1). Groups come in a fixed order,
// empty ones left out.
func (c Conformance) SkipGroups() []SkipGroup {
	profile, perr := spec.LookupProfile(c.Profile.Name)
	by := map[SkipCause]*SkipGroup{}
	for _, r := range c.Requirements {
		if r.Verdict != Skip {
			continue
		}
		cause := SkipOther
		switch {
		case notDrivable(r):
			cause = SkipNotDrivable
		case slices.Contains(c.Features.Exempt, r.Feature):
			cause = SkipExempted
		case perr == nil && r.Feature != spec.FeatureCore && !profile.Has(r.Feature), !appliesTo(r.ID, c.Profile.Name):
			cause = SkipOutsideProfile
		case perr == nil && r.Feature != spec.FeatureCore && !slices.Contains(c.Features.Effective, r.Feature):
			cause = SkipNotDeclared
		}
		g := by[cause]
		if g == nil {
			g = &SkipGroup{Cause: cause}
			by[cause] = g
		}
		g.Requirements = append(g.Requirements, r.ID)
		if cause != SkipOther && cause != SkipNotDrivable && !slices.Contains(g.Features, r.Feature) {
			g.Features = append(g.Features, r.Feature)
		}
	}
	var out []SkipGroup
	for _, cause := range skipCauses {
		if g := by[cause]; g != nil {
			sort.Strings(g.Features)
			out = append(out, *g)
		}
	}
	return out
}

// notDrivable reports whether every skipped spec of r says the target cannot
// drive it.
func notDrivable(r RequirementLine) bool {
	n := 0
	for _, s := range r.Specs {
		if s.Verdict == Skip {
			if !strings.HasPrefix(s.Message, protocol.NotDrivablePrefix) {
				return false
			}
			n++
		}
	}
	return n > 0
}

// SkipLine says, on one line for summary.md and the console, why the
// skipped requirements ran no spec, grouped by cause ("" when none was
// skipped), e.g. "34 requirements skipped: 30 outside the profile v1
// (features results, session-store), 4 optional feature not declared
// (feature typescript)".
func (c Conformance) SkipLine() string { return c.skipLine(true) }

// SkipCounts is SkipLine's causes with their counts only, for the closing
// line ("34 outside profile v1; 2 optional feature not declared").
func (c Conformance) SkipCounts() string {
	line := c.skipLine(false)
	if _, rest, ok := strings.Cut(line, ": "); ok {
		return rest
	}
	return line
}

func (c Conformance) skipLine(features bool) string {
	groups := c.SkipGroups()
	if len(groups) == 0 {
		return ""
	}
	total := 0
	var parts []string
	for _, g := range groups {
		total += len(g.Requirements)
		part := fmt.Sprintf("%d %s", len(g.Requirements), g.Cause)
		if g.Cause == SkipOutsideProfile && c.Profile.Name != "" {
			part = fmt.Sprintf("%d outside profile %s", len(g.Requirements), c.Profile.Name)
		}
		if features && len(g.Features) > 0 {
			part += fmt.Sprintf(" (%s %s)", map[bool]string{true: "feature", false: "features"}[len(g.Features) == 1], strings.Join(g.Features, ", "))
		}
		parts = append(parts, part)
	}
	noun := "requirements"
	if total == 1 {
		noun = "requirement"
	}
	return fmt.Sprintf("%d %s skipped: %s", total, noun, strings.Join(parts, "; "))
}

// appliesTo reports whether profile judges requirement id
// (spec.Requirement.AppliesTo); an unknown id or no profile: true.
func appliesTo(id, profile string) bool {
	r, ok := spec.Lookup(id)
	return !ok || profile == "" || r.AppliesTo(profile)
}
