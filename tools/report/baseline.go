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
//	    class: deviation          # deviation (from the seeds) | decision (a project decision the target does not follow)
//	    reason: "not implemented yet (#12)"
//	    note: "…"                 # optional: e.g. a triage row that questions the entry
//	specs:
//	  - "CM-RUN-01 while waiting exactly zero live VMs …"   # a spec's text as progress lines print it
//	  - name: "…"                                            # (or its full text, as junit.xml names it)
//	    reason: "…"
//	  - name: "…"                                            # a spec whose outcome is known to vary
//	    flaky: true
//	    reason: "…"                                          # required with flaky: why it varies
//
// Class says what kind of known failure an entry is (issue 24): a deviation
// of the target from the seed pages, or a project decision the target does
// not follow. There is no "not drivable" class: a spec the target cannot
// drive is skipped (protocol.NotDrivablePrefix) and never an expected
// failure; a baseline that lists a spec or requirement whose verdict is
// skip or blocked gets a baseline error (Evaluation.BaselineErrors) that
// fails the run. Class is optional in the syntax (a bare ID has none); the
// committed baselines under reports/ carry one on every entry (a test checks).
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
	Class  Class  `yaml:"class,omitempty"`
	Reason string `yaml:"reason,omitempty"`
	Note   string `yaml:"note,omitempty"`
}

// Class is a baseline entry's kind of known failure.
type Class string

// Classes of a baseline entry.
const (
	// ClassDeviation: the target deviates from what the seed pages say.
	ClassDeviation Class = "deviation"
	// ClassDecision: the target does not follow a project decision
	// (spec/protocol.md §12) that the seeds leave open.
	ClassDecision Class = "decision"
	// ClassUntriaged: a known failure whose cause is not yet established:
	// not reproduced without the harness and the adapter (so not a
	// deviation), resting on no named decision, or suspected to be the
	// harness's (the entry's note says which). It is expected, never
	// counted as the target's deviation.
	ClassUntriaged Class = "untriaged"
)

// checkClass accepts "", deviation, decision and untriaged.
func checkClass(c Class) error {
	switch c {
	case "", ClassDeviation, ClassDecision, ClassUntriaged:
		return nil
	case "not-drivable", "not drivable", "skip":
		return fmt.Errorf("class %q: a spec the target cannot drive is skipped as not drivable, never an expected failure (remove the entry)", c)
	}
	return fmt.Errorf("unknown class %q (want %s, %s or %s)", c, ClassDeviation, ClassDecision, ClassUntriaged)
}

// ExpectedSpec is one specs: entry: a spec name, or {name, reason, flaky}.
type ExpectedSpec struct {
	Name   string `yaml:"name"`
	Class  Class  `yaml:"class,omitempty"`
	Reason string `yaml:"reason,omitempty"`
	Note   string `yaml:"note,omitempty"`
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
		if err := checkClass(r.Class); err != nil {
			return nil, fmt.Errorf("requirements[%d] %s: %w", i, r.ID, err)
		}
	}
	for i, s := range b.Specs {
		if s.Name == "" {
			return nil, fmt.Errorf("specs[%d]: empty spec name", i)
		}
		if id := specID(s.Name); id == "" {
			return nil, fmt.Errorf("specs[%d]: spec name %q does not contain a known requirement ID (spec names start with one, e.g. \"CM-EXEC-08 …\")", i, s.Name)
		}
		if err := checkClass(s.Class); err != nil {
			return nil, fmt.Errorf("specs[%d] %q: %w", i, s.Name, err)
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
