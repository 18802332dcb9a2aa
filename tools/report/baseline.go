package report

import (
	"fmt"
	"os"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/goccy/go-yaml"
)

// Baseline is an expected-failures file (--expected-failures FILE): the
// requirements and specs a target is known to fail.
//
//	requirements:
//	  - CM-LIM-03                 # a requirement ID
//	  - id: CM-EXEC-08            # or an ID with a reason
//	    reason: "not implemented yet (#12)"
//	specs:
//	  - "CM-RUN-01 while waiting exactly zero live VMs …"   # a spec's text as progress lines print it
//	  - name: "…"                                            # (or its full text, as junit.xml names it)
//	    reason: "…"
//	  - name: "…"                                            # a spec whose outcome is known to vary
//	    flaky: true
//	    reason: "…"                                          # required with flaky: why it varies
//
// A spec listed by name, or any spec of a listed requirement, that fails is
// an xfail; a spec listed by name that passes, or a listed requirement none
// of whose specs failed, is an xpass (the entry is stale). Errors stay
// errors: a crash is never expected. A spec entry with flaky: true accepts
// both outcomes: a failure is an xfail, a pass stays a pass (not an xpass);
// either way the verdict carries the flag and the reason, and the report
// lists every flaky entry with this run's outcome (Evaluation.Flaky), so a
// varying outcome is recorded, never silently absorbed.
type Baseline struct {
	Requirements []ExpectedRequirement `yaml:"requirements"`
	Specs        []ExpectedSpec        `yaml:"specs"`
}

// ExpectedRequirement is one requirements: entry: an ID, or {id, reason}.
type ExpectedRequirement struct {
	ID     string `yaml:"id"`
	Reason string `yaml:"reason,omitempty"`
}

// ExpectedSpec is one specs: entry: a spec name, or {name, reason, flaky}.
type ExpectedSpec struct {
	Name   string `yaml:"name"`
	Reason string `yaml:"reason,omitempty"`
	// Flaky marks a spec whose outcome is known to vary from run to run:
	// a pass is accepted (reported as a flaky pass) as well as a failure.
	Flaky bool `yaml:"flaky,omitempty"`
}

// UnmarshalYAML accepts a bare ID or a mapping.
func (e *ExpectedRequirement) UnmarshalYAML(unmarshal func(any) error) error {
	type plain ExpectedRequirement
	return scalarOrMapping(unmarshal, &e.ID, (*plain)(e))
}

// UnmarshalYAML accepts a bare name or a mapping.
func (e *ExpectedSpec) UnmarshalYAML(unmarshal func(any) error) error {
	type plain ExpectedSpec
	return scalarOrMapping(unmarshal, &e.Name, (*plain)(e))
}

func scalarOrMapping(unmarshal func(any) error, scalar *string, mapping any) error {
	if unmarshal(scalar) == nil {
		return nil
	}
	return unmarshal(mapping)
}

// LoadBaseline reads and checks an expected-failures file (see Baseline).
func LoadBaseline(path string) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("expected failures: %w", err)
	}
	b, err := ParseBaseline(data)
	if err != nil {
		return nil, fmt.Errorf("expected failures %s: %w", path, err)
	}
	return b, nil
}

// ParseBaseline decodes an expected-failures file and checks it: unknown
// keys, an unknown requirement ID, a spec name that does not start with a
// known requirement ID, or an empty entry are errors.
func ParseBaseline(data []byte) (*Baseline, error) {
	var b Baseline
	if err := yaml.UnmarshalWithOptions(data, &b, yaml.DisallowUnknownField()); err != nil {
		return nil, fmt.Errorf("not a valid file (want requirements: [IDs] and/or specs: [names]):\n%s", yaml.FormatError(err, false, true))
	}
	for i, r := range b.Requirements {
		if r.ID == "" {
			return nil, fmt.Errorf("requirements[%d]: empty requirement ID", i)
		}
		if _, ok := spec.Lookup(r.ID); !ok {
			return nil, fmt.Errorf("requirements[%d]: unknown requirement ID %q (not in spec/requirements.yaml)", i, r.ID)
		}
	}
	for i, s := range b.Specs {
		if s.Name == "" {
			return nil, fmt.Errorf("specs[%d]: empty spec name", i)
		}
		if id := specID(s.Name); id == "" {
			return nil, fmt.Errorf("specs[%d]: spec name %q does not contain a known requirement ID (spec names start with one, e.g. \"CM-EXEC-08 …\")", i, s.Name)
		}
		if s.Flaky && strings.TrimSpace(s.Reason) == "" {
			return nil, fmt.Errorf("specs[%d]: %q is flaky: true without a reason (say why its outcome varies)", i, s.Name)
		}
	}
	return &b, nil
}

// specID finds the requirement ID a spec name carries: the first word that is
// a known ID (a full text starts with container texts).
func specID(name string) string {
	for _, w := range strings.Fields(name) {
		if _, ok := spec.Lookup(w); ok {
			return w
		}
	}
	return ""
}

// requirement returns the entry listing id, if any.
func (b *Baseline) requirement(id string) (ExpectedRequirement, bool) {
	if b != nil {
		for _, r := range b.Requirements {
			if r.ID == id {
				return r, true
			}
		}
	}
	return ExpectedRequirement{}, false
}

// spec returns the entry listing s by its text or full text, if any.
func (b *Baseline) spec(s SpecResult) (ExpectedSpec, bool) {
	if b != nil {
		for _, e := range b.Specs {
			if e.Name == s.Text || (s.FullText != "" && e.Name == s.FullText) {
				return e, true
			}
		}
	}
	return ExpectedSpec{}, false
}
