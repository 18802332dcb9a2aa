package framework

import (
	"fmt"
	"slices"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/onsi/ginkgo/v2"
)

// NotImplementedPrefix starts the failure message of a spec whose feature
// the judged profile requires and the target does not declare
// (spec.Profile.Required, protocol.md §9).
const NotImplementedPrefix = "not implemented: "

// RequiredGap is what the judged profile requires (spec.Profile.Required)
// that the run's feature set lacks, each list in features: order.
type RequiredGap struct {
	// Profile is the judged profile (Profile()).
	Profile string
	// Missing are required features neither in the effective feature set,
	// nor exempted, nor declared not drivable: their specs fail as not
	// implemented.
	Missing []string
	// Exempted are required features removed by --exempt-features
	// (Config.ExemptFeatures): their specs skip, and the reports say the
	// user exempted a required feature.
	Exempted []string
	// NotDrivable are required features the target declared it cannot drive
	// (initialize notDrivable[].feature): their specs skip as not drivable.
	NotDrivable []string
}

// Empty reports whether the run lacks no required feature.
func (g RequiredGap) Empty() bool {
	return len(g.Missing) == 0 && len(g.Exempted) == 0 && len(g.NotDrivable) == 0
}

// RequiredFeatures returns the run's RequiredGap; zero before the suite
// connected to the target (or under an unknown profile, a target error).
func RequiredFeatures() RequiredGap {
	name := Profile()
	p, err := spec.LookupProfile(name)
	if name == "" || err != nil {
		return RequiredGap{}
	}
	g := RequiredGap{Profile: p.Name}
	have := Features()
	for _, f := range p.Required {
		switch {
		case have.Has(f):
		case slices.Contains(current.ExemptFeatures, f):
			g.Exempted = append(g.Exempted, f)
		case notDrivableFeature(f) != "":
			g.NotDrivable = append(g.NotDrivable, f)
		default:
			g.Missing = append(g.Missing, f)
		}
	}
	return g
}

// absentFeature ends a spec of requirement req whose feature the run's
// feature set does not hold: a skip when the judged profile does not define
// the feature, a skip when the profile allows it (optional) or the user
// exempted it (--exempt-features), and a failure "not implemented: profile
// v1 requires feature X" when the profile requires it (protocol.md §9).
func absentFeature(req spec.Requirement) {
	p, err := spec.LookupProfile(Profile())
	if err == nil && !p.Has(req.Feature) {
		ginkgo.Skip(fmt.Sprintf("feature %q is not part of profile %s, which this run judges (requirement %s; see --profile)", req.Feature, p.Name, req.ID))
	}
	if err == nil && p.Requires(req.Feature) {
		if slices.Contains(current.ExemptFeatures, req.Feature) {
			ginkgo.Skip(fmt.Sprintf("required feature %q exempted by the user (--exempt-features): profile %s requires it (requirement %s)", req.Feature, p.Name, req.ID))
		}
		ginkgo.Fail(fmt.Sprintf("%sprofile %s requires feature %s, which the target does not declare (requirement %s, %s: %s)", NotImplementedPrefix, p.Name, req.Feature, req.ID, req.Level, req.Text))
	}
	ginkgo.Skip(fmt.Sprintf("feature %q is not declared by the target (requirement %s)", req.Feature, req.ID))
}
