package report

import (
	"fmt"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
)

// RequiredFeatures records the features the judged profile requires
// (spec.Profile.Required, protocol.md §9) that the run lacked, each list in
// features: order. conformance-report.yaml has it as features.required.
type RequiredFeatures struct {
	// Missing: required, not declared (nor exempted, nor not drivable); the
	// specs of each ran and behaviour decided, except a feature the harness
	// drives through a surface of its own (spec.Feature.Driver), which got
	// one failure "not implemented or not drivable" and blocked the rest.
	Missing []string `yaml:"missing,omitempty" json:"missing,omitempty"`
	// Exempted: required, removed by --exempt-features; their requirements
	// were skipped, so the run is at best partial.
	Exempted []string `yaml:"exempted,omitempty" json:"exempted,omitempty"`
	// NotDrivable: required, declared not drivable by the target
	// (notDrivable[].feature); their requirements were skipped as not
	// drivable.
	NotDrivable []string `yaml:"notDrivable,omitempty" json:"notDrivable,omitempty"`
}

// Empty reports whether the run lacked no required feature.
func (r *RequiredFeatures) Empty() bool {
	return r == nil || len(r.Missing) == 0 && len(r.Exempted) == 0 && len(r.NotDrivable) == 0
}

// Lines are the lines the console, summary.md and report.html show at the
// top: one per kind of gap, naming the profile and the features; none when
// nothing required is lacking.
func (r *RequiredFeatures) Lines(profile string) []string {
	if r.Empty() {
		return nil
	}
	var out []string
	if len(r.Missing) > 0 {
		var driven []string
		for _, f := range r.Missing {
			if sf, err := spec.LookupFeature(f); err == nil && sf.Driver != "" {
				driven = append(driven, f)
			}
		}
		line := fmt.Sprintf("required features missing: profile %s requires %s, which the target does not declare; their specs ran and are judged on behaviour", profile, strings.Join(r.Missing, ", "))
		if len(driven) > 0 {
			line += fmt.Sprintf(", except %s, which the harness drives only through a surface of its own: one failure each, as not implemented or not drivable, and their other requirements blocked", strings.Join(driven, ", "))
		}
		out = append(out, line)
	}
	if len(r.Exempted) > 0 {
		out = append(out, fmt.Sprintf("required features exempted by the user (--exempt-features): %s; profile %s requires them, their requirements were skipped", strings.Join(r.Exempted, ", "), profile))
	}
	if len(r.NotDrivable) > 0 {
		out = append(out, fmt.Sprintf("required features the target declared not drivable: %s; profile %s requires them, their requirements were skipped as not drivable", strings.Join(r.NotDrivable, ", "), profile))
	}
	return out
}

// ApplyRequired records r in c.Features.Required and judges it: a run that
// exempted a required feature is at best partial, with the reason; missing
// required features are a reason of a run that already fails (their specs
// failed), and a filtered run that did not select them keeps its verdict.
func (c *Conformance) ApplyRequired(r RequiredFeatures) {
	if r.Empty() {
		c.Features.Required = nil
		return
	}
	c.Features.Required = &r
	if len(r.Missing) > 0 && c.Overall == Failure {
		c.Reasons = append(c.Reasons, fmt.Sprintf("required features missing under profile %s: %s (not declared)", c.Profile.Name, strings.Join(r.Missing, ", ")))
	}
	if len(r.Exempted) > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("required features exempted by the user: %s (profile %s requires them)", strings.Join(r.Exempted, ", "), c.Profile.Name))
		if c.Overall == Success {
			c.Overall = Partial
		}
	}
}

// RequiredMarkdown is the summary.md block of the required-feature lines
// (after the title), or "".
func (c Conformance) RequiredMarkdown() string {
	lines := c.Features.Required.Lines(c.Profile.Name)
	if len(lines) == 0 {
		return ""
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("- **" + strings.ToUpper(l[:1]) + l[1:] + "**\n")
	}
	return b.String()
}
