package diff

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/goccy/go-yaml"
)

// TriageClasses are the classes a triage row gives a behavioural
// difference: deviation (the owner departs from the contract), decision
// (the contract leaves it to the implementation and the owner chose),
// ambiguity (the seeds can be read both ways) and harness-bug.
var TriageClasses = []string{"deviation", "decision", "ambiguity", "harness-bug"}

// Row is one triaged behavioural difference.
type Row struct {
	// Cell is the cell's file name.
	Cell string `yaml:"cell" json:"cell"`
	// Owner is the target (its --target spelling) whose behaviour the row
	// is about; a row covers the cell's difference between the first
	// target and another when the owner is either of them.
	Owner       string `yaml:"owner" json:"owner"`
	Class       string `yaml:"class" json:"class"`
	Note        string `yaml:"note" json:"note"`
	Requirement string `yaml:"requirement,omitempty" json:"requirement,omitempty"`
	// Fingerprint, when set, is the Verdict.Fingerprint the row triaged: a
	// difference whose fingerprint is another is "changed", untriaged again.
	Fingerprint string `yaml:"fingerprint,omitempty" json:"fingerprint,omitempty"`
}

// Triage is a triage file: {triage: [rows]}.
type Triage []Row

// LoadTriage reads a triage file. Unknown keys, a row without cell, owner
// or note, an unknown class, an unknown requirement id, or two rows for
// one cell and owner are errors.
func LoadTriage(path string) (Triage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Triage Triage `yaml:"triage"`
	}
	if err := yaml.UnmarshalWithOptions(b, &doc, yaml.Strict()); err != nil {
		return nil, fmt.Errorf("%s: %s", path, yaml.FormatError(err, false, false))
	}
	seen := map[string]bool{}
	for i, r := range doc.Triage {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%s: triage[%d] (%s, %s): %s", path, i, r.Cell, r.Owner, fmt.Sprintf(format, args...))
		}
		switch {
		case r.Cell == "" || r.Owner == "" || strings.TrimSpace(r.Note) == "":
			return nil, bad("cell, owner and note are required")
		case !slices.Contains(TriageClasses, r.Class):
			return nil, bad("class %q is not one of %v", r.Class, TriageClasses)
		case seen[r.Cell+"\x00"+r.Owner]:
			return nil, bad("a second row for this cell and owner")
		}
		if r.Requirement != "" {
			if _, ok := spec.Lookup(r.Requirement); !ok {
				return nil, bad("requirement %q is not in spec/requirements.yaml", r.Requirement)
			}
		}
		seen[r.Cell+"\x00"+r.Owner] = true
	}
	return doc.Triage, nil
}

// covering returns the row about cell whose owner is other, else the one
// whose owner is base.
func (t Triage) covering(cell, base, other string) *Row {
	for _, owner := range []string{other, base} {
		for i, r := range t {
			if r.Cell == cell && r.Owner == owner {
				return &t[i]
			}
		}
	}
	return nil
}
