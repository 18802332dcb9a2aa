// Package spec holds the code mode contract's requirement catalogue as data.
//
// The catalogue is requirements.yaml, embedded into the binary. It is a
// transcription of the contract's first catalogue, REQUIREMENTS.md (a copy
// is testdata/REQUIREMENTS.md; requirements_test.go compares the two): one
// entry per table row, in document order, with the same ID, level
// and feature. The file has two top-level keys:
//
//	areas:                      # area code -> title
//	  CFG: Configuration
//	  ...
//	requirements:               # one entry per requirement
//	  - id: CM-CFG-01           # CM-<AREA>-<two digits>
//	    area: CFG               # the ID's middle part; must be a key of areas
//	    level: MUST             # MUST or SHOULD
//	    feature: core           # capability a target must declare ("core" is always required)
//	    source: "000 [Configurazione]"  # section(s) of the seed documents
//	    text: >-                # the requirement in English
//	      ...
//	    excluded: "<reason>"    # optional: why no black-box test can observe it
//
// Package spec imports only the standard library and github.com/goccy/go-yaml,
// so any package of the module may depend on it.
package spec

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"
)

//go:embed requirements.yaml
var requirementsYAML []byte

// Requirement is one normative behaviour of the code mode contract.
type Requirement struct {
	// ID is the stable identifier, e.g. "CM-CFG-01".
	ID string `yaml:"id"`
	// Area is the ID's middle part, e.g. "CFG"; see Areas.
	Area string `yaml:"area"`
	// Level is "MUST" or "SHOULD".
	Level string `yaml:"level"`
	// Feature is the capability a target must declare for the requirement
	// to apply; "core" is always required.
	Feature string `yaml:"feature"`
	// Source names the seed document ("000" Italian page, "001" Chinese
	// internals page, or other origins) and section(s), e.g. "000 [Configurazione]".
	Source string `yaml:"source"`
	// Text is the requirement wording.
	Text string `yaml:"text"`
	// Excluded, when non-empty, is the reason the requirement is not covered
	// by any black-box spec. Empty means it must be covered.
	Excluded string `yaml:"excluded"`
	// Planned, when non-empty, says which not-yet-built feature or area will
	// cover the requirement (e.g. "feature mcp: needs MCP servers in
	// run.prepare"). It is not an exclusion: CONFORMANCE.md counts it as not
	// yet covered, and a planned requirement that gains a spec is an error
	// until the marker is removed.
	Planned string `yaml:"planned"`
	// Decision, when non-empty, records how a contract question about this
	// requirement was decided (e.g. where the two source pages and a real
	// implementation disagree) and where the evidence is.
	Decision string `yaml:"decision"`
}

// Area is a group of requirements sharing the middle part of their IDs.
type Area struct {
	Code  string // e.g. "CFG"
	Title string // e.g. "Configuration"
}

// Level values.
const (
	LevelMust   = "MUST"
	LevelShould = "SHOULD"
)

var idPattern = regexp.MustCompile(`^CM-[A-Z0-9]+-[0-9]{2}$`)

// rawRequirement distinguishes an absent excluded key from an empty one.
type rawRequirement struct {
	ID       string  `yaml:"id"`
	Area     string  `yaml:"area"`
	Level    string  `yaml:"level"`
	Feature  string  `yaml:"feature"`
	Source   string  `yaml:"source"`
	Text     string  `yaml:"text"`
	Excluded *string `yaml:"excluded"`
	Planned  *string `yaml:"planned"`
	Decision string  `yaml:"decision"`
}

type rawFile struct {
	Areas        map[string]string `yaml:"areas"`
	Requirements []rawRequirement  `yaml:"requirements"`
}

// ParseRequirements decodes and validates a catalogue in the requirements.yaml
// format (see the package documentation). Unknown keys are rejected. Each
// requirement must have an ID matching ^CM-[A-Z0-9]+-[0-9]{2}$ that is unique
// in the file, a level of MUST or SHOULD, a non-empty feature, source and
// text, and an area equal to the ID's middle part that is a key of the areas
// map; excluded and planned, when present, must be non-empty and not both. Errors name the offending
// ID (or its position when the ID is missing).
//
// It returns the requirements in file order and the areas in the order they
// first appear among the requirements (areas that no requirement uses are
// not returned).
func ParseRequirements(data []byte) ([]Requirement, []Area, error) {
	var f rawFile
	dec := yaml.NewDecoder(bytes.NewReader(data), yaml.DisallowUnknownField())
	if err := dec.Decode(&f); err != nil {
		return nil, nil, fmt.Errorf("spec: decode requirements: %w", err)
	}
	if len(f.Requirements) == 0 {
		return nil, nil, errors.New("spec: no requirements")
	}
	for code, title := range f.Areas {
		if strings.TrimSpace(title) == "" {
			return nil, nil, fmt.Errorf("spec: area %q has an empty title", code)
		}
	}

	reqs := make([]Requirement, 0, len(f.Requirements))
	var areas []Area
	seenID := make(map[string]bool, len(f.Requirements))
	seenArea := make(map[string]bool, len(f.Areas))
	for i, r := range f.Requirements {
		name := r.ID
		if name == "" {
			name = fmt.Sprintf("#%d (no id)", i+1)
		}
		fail := func(format string, args ...any) error {
			return fmt.Errorf("spec: requirement %s: %s", name, fmt.Sprintf(format, args...))
		}
		if !idPattern.MatchString(r.ID) {
			return nil, nil, fail("malformed id, want %s", idPattern)
		}
		if seenID[r.ID] {
			return nil, nil, fail("duplicate id")
		}
		seenID[r.ID] = true
		if mid := strings.Split(r.ID, "-")[1]; r.Area != mid {
			return nil, nil, fail("area %q does not match id (want %q)", r.Area, mid)
		}
		title, ok := f.Areas[r.Area]
		if !ok {
			return nil, nil, fail("area %q is not in the areas map", r.Area)
		}
		if r.Level != LevelMust && r.Level != LevelShould {
			return nil, nil, fail("level %q is neither %s nor %s", r.Level, LevelMust, LevelShould)
		}
		if strings.TrimSpace(r.Feature) == "" {
			return nil, nil, fail("empty feature")
		}
		if strings.TrimSpace(r.Source) == "" {
			return nil, nil, fail("empty source")
		}
		if strings.TrimSpace(r.Text) == "" {
			return nil, nil, fail("empty text")
		}
		excluded := ""
		if r.Excluded != nil {
			if strings.TrimSpace(*r.Excluded) == "" {
				return nil, nil, fail("excluded is present but gives no reason")
			}
			excluded = *r.Excluded
		}
		planned := ""
		if r.Planned != nil {
			if strings.TrimSpace(*r.Planned) == "" {
				return nil, nil, fail("planned is present but says nothing")
			}
			if excluded != "" {
				return nil, nil, fail("both excluded and planned")
			}
			planned = *r.Planned
		}
		if !seenArea[r.Area] {
			seenArea[r.Area] = true
			areas = append(areas, Area{Code: r.Area, Title: title})
		}
		reqs = append(reqs, Requirement{
			ID:       r.ID,
			Area:     r.Area,
			Level:    r.Level,
			Feature:  r.Feature,
			Source:   r.Source,
			Text:     r.Text,
			Excluded: excluded,
			Planned:  planned,
			Decision: r.Decision,
		})
	}
	return reqs, areas, nil
}

var (
	loadOnce   sync.Once
	loadedReqs []Requirement
	loadedArea []Area
	loadedByID map[string]int
)

func load() {
	loadOnce.Do(func() {
		reqs, areas, err := ParseRequirements(requirementsYAML)
		if err != nil {
			panic("spec: embedded requirements.yaml is invalid: " + err.Error())
		}
		loadedReqs, loadedArea = reqs, areas
		loadedByID = make(map[string]int, len(reqs))
		for i, r := range reqs {
			loadedByID[r.ID] = i
		}
	})
}

// Requirements returns the embedded catalogue in document order. The slice
// is a fresh copy on every call. It panics only if the embedded
// requirements.yaml is invalid, which the package tests rule out.
func Requirements() []Requirement {
	load()
	return append([]Requirement(nil), loadedReqs...)
}

// Lookup returns the requirement with the given ID, if the catalogue has it.
func Lookup(id string) (Requirement, bool) {
	load()
	i, ok := loadedByID[id]
	if !ok {
		return Requirement{}, false
	}
	return loadedReqs[i], true
}

// Areas returns the areas of the embedded catalogue in the order they first
// appear in the requirement list. The slice is a fresh copy on every call.
func Areas() []Area {
	load()
	return append([]Area(nil), loadedArea...)
}
