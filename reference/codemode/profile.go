package codemode

import (
	"slices"

	"github.com/codemode-conformance/codemode/spec"
)

// Implemented are the features (spec/requirements.yaml features:) the
// reference implements under some profile. The features it declares are the
// ones its profile defines among these (Options.Features); a helper who
// builds a feature adds its name here and branches on Options.HasFeature.
var Implemented = []string{
	spec.FeatureCore, "yield", "typescript", "javascript-only", "shell-exec", "telemetry",
	"snapshot-executor", "isolation", "fault-injection", "pending-call-limit",
	"run-lifecycle-messages", "bridge-queue", "execution-mode", "trajectory",
}

// ProfileName is the profile the options select: Profile, or
// spec.DefaultProfile ("v1") when empty.
func (o Options) ProfileName() string {
	if o.Profile == "" {
		return spec.DefaultProfile
	}
	return o.Profile
}

// Features are the features the reference declares in initialize under the
// selected profile: those of Implemented that the profile defines, in
// Implemented order. An unknown profile declares nothing (the server refuses
// it before a runtime exists: spec.LookupProfile).
func (o Options) Features() []string {
	p, err := spec.LookupProfile(o.ProfileName())
	if err != nil {
		return nil
	}
	var out []string
	for _, f := range Implemented {
		if p.Has(f) {
			out = append(out, f)
		}
	}
	return out
}

// HasFeature reports whether the reference, under the selected profile,
// implements feature name: the behaviour switch for the choices where the
// two generations disagree (e.g. "javascript-only" refuses TypeScript,
// "run-lifecycle-messages" gives CM-EXEC-10's wait failures).
func (o Options) HasFeature(name string) bool {
	return slices.Contains(o.Features(), name)
}
