// Package spec holds the code mode contract's requirement catalogue as data.
//
// The catalogue is requirements.yaml, embedded into the binary: the living,
// versioned contract. Version 1 was the contract's first catalogue,
// REQUIREMENTS.md (a verbatim copy is testdata/REQUIREMENTS.md), frozen
// since; every later change is recorded in CHANGES.md. The file has five
// top-level keys:
//
//	version: 2                  # catalogue version, named by every report
//	areas:                      # area code -> title
//	  CFG: Configuration
//	  ...
//	features:                   # every feature a target can declare (features.go)
//	  - name: bridge-queue      # lower-case kebab words, unique
//	    profiles: [v2]          # the profiles that define it
//	    excludes: [pending-call-limit]  # optional: never declared together (symmetric)
//	    hook: true              # optional: a test hook, no contract feature
//	    meaning: ...            # what declaring it means (protocol.md §9 table)
//	profiles:                   # contract generations
//	  - name: v1                # v1, v2
//	    generation: 1
//	    source: "000"           # the seed page it follows
//	    openclaw: 2026.5 to 2026.7.35
//	    meaning: ...
//	    requires: [core, …]     # features a target of the profile must declare (core always)
//	    allows: [streaming, …]  # the profile's other features (optional); requires+allows = the
//	                            # features whose profiles name it, checked by the loader
//	requirements:               # one entry per requirement
//	  - id: CM-CFG-01           # CM-<AREA>-<two digits>
//	    area: CFG               # the ID's middle part; must be a key of areas
//	    level: MUST             # MUST or SHOULD
//	    feature: core           # a name of features: ("core" is always required)
//	    basis: [seed]           # what it rests on: seed, openclaw-source, hardening (one or more)
//	    source: "000 [Configurazione]"  # section(s) of the seed documents, or the other origin
//	    text: >-                # the requirement in English
//	      ...
//	    excluded: "<reason>"    # optional: why no black-box test can observe it
//	    planned: "<what>"       # optional: the unbuilt feature or issue that will cover it
//	    decision: "<text>"      # optional: how a contract question about it was decided
//	    profiles: [v1]          # optional: the only profiles that judge it (Requirement.AppliesTo)
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
	"slices"
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
	// Basis says what the requirement rests on, one or more of BasisSeed,
	// BasisOpenClawSource and BasisHardening, in file order.
	Basis []string `yaml:"basis"`
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
	// Profiles, when non-empty, are the only profiles that judge the
	// requirement although its feature is in others too: a core text that is
	// one page's alone (e.g. CM-CFG-06, "(000)" config values that page 001
	// names none of). Empty: every profile that has its feature.
	Profiles []string `yaml:"profiles"`
}

// AppliesTo reports whether profile judges r: its feature decides, unless
// r.Profiles narrows it (a profile not listed there does not judge r; its
// specs skip "outside the profile", never a core skip).
func (r Requirement) AppliesTo(profile string) bool {
	return len(r.Profiles) == 0 || slices.Contains(r.Profiles, profile)
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

// Basis values: what a requirement rests on.
const (
	// BasisSeed: a statement of a source page (000 or 001); Source names the
	// section, e.g. "000 [wait]".
	BasisSeed = "seed"
	// BasisOpenClawSource: a fact taken from OpenClaw's implementation (its
	// code or tests), not stated by the pages.
	BasisOpenClawSource = "openclaw-source"
	// BasisHardening: a rule added from field reports and hostile cases.
	BasisHardening = "hardening"
)

// Bases lists the basis values in report order.
var Bases = []string{BasisSeed, BasisOpenClawSource, BasisHardening}

var (
	idPattern = regexp.MustCompile(`^CM-[A-Z0-9]+-[0-9]{2}$`)
	// seedSection is a seed page with a section, e.g. "000 [wait]".
	seedSection = regexp.MustCompile(`\b00[01] \[[^\]]+\]`)
)

// rawRequirement distinguishes an absent excluded key from an empty one.
type rawRequirement struct {
	ID       string   `yaml:"id"`
	Area     string   `yaml:"area"`
	Level    string   `yaml:"level"`
	Feature  string   `yaml:"feature"`
	Basis    []string `yaml:"basis"`
	Source   string   `yaml:"source"`
	Text     string   `yaml:"text"`
	Excluded *string  `yaml:"excluded"`
	Planned  *string  `yaml:"planned"`
	Decision string   `yaml:"decision"`
	Profiles []string `yaml:"profiles"`
}

type rawFile struct {
	Version      int               `yaml:"version"`
	Areas        map[string]string `yaml:"areas"`
	Features     []rawFeature      `yaml:"features"`
	Profiles     []rawProfile      `yaml:"profiles"`
	Requirements []rawRequirement  `yaml:"requirements"`
}

// Catalogue is a parsed requirements.yaml.
type Catalogue struct {
	// Version is the catalogue version (1 was REQUIREMENTS.md; see CHANGES.md).
	Version int
	// Requirements are in file order.
	Requirements []Requirement
	// Areas are in the order they first appear among the requirements.
	Areas []Area
	// Features are the features section, in file order (see Features).
	Features []Feature
	// Profiles are the profiles section, in file order (see Profiles).
	Profiles []Profile
}

// ParseRequirements is ParseCatalogue without the version: it returns the
// requirements in file order and the areas in the order they first appear
// among the requirements (areas that no requirement uses are not returned).
func ParseRequirements(data []byte) ([]Requirement, []Area, error) {
	c, err := ParseCatalogue(data)
	if err != nil {
		return nil, nil, err
	}
	return c.Requirements, c.Areas, nil
}

// ParseCatalogue decodes and validates a catalogue in the requirements.yaml
// format (see the package documentation). Unknown keys are rejected. The
// version must be a positive integer. Each requirement must have an ID
// matching ^CM-[A-Z0-9]+-[0-9]{2}$ that is unique in the file, a level of
// MUST or SHOULD, a non-empty feature, source and text, an area equal to the
// ID's middle part that is a key of the areas map, and a basis of one or more
// distinct values of Bases, where seed requires a source naming a seed
// section ("000 [exec]") and a source naming none requires another basis;
// excluded and planned, when present, must be non-empty and not both. Errors
// name the offending ID (or its position when the ID is missing).
func ParseCatalogue(data []byte) (Catalogue, error) {
	var f rawFile
	dec := yaml.NewDecoder(bytes.NewReader(data), yaml.DisallowUnknownField())
	if err := dec.Decode(&f); err != nil {
		return Catalogue{}, fmt.Errorf("spec: decode requirements: %w", err)
	}
	if f.Version < 1 {
		return Catalogue{}, fmt.Errorf("spec: catalogue version %d: want a positive integer (version: N)", f.Version)
	}
	if len(f.Requirements) == 0 {
		return Catalogue{}, errors.New("spec: no requirements")
	}
	features, profiles, err := parseFeatures(f.Features, f.Profiles)
	if err != nil {
		return Catalogue{}, err
	}
	known := make(map[string]bool, len(features))
	for _, ft := range features {
		known[ft.Name] = true
	}
	for code, title := range f.Areas {
		if strings.TrimSpace(title) == "" {
			return Catalogue{}, fmt.Errorf("spec: area %q has an empty title", code)
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
			return Catalogue{}, fail("malformed id, want %s", idPattern)
		}
		if seenID[r.ID] {
			return Catalogue{}, fail("duplicate id")
		}
		seenID[r.ID] = true
		if mid := strings.Split(r.ID, "-")[1]; r.Area != mid {
			return Catalogue{}, fail("area %q does not match id (want %q)", r.Area, mid)
		}
		title, ok := f.Areas[r.Area]
		if !ok {
			return Catalogue{}, fail("area %q is not in the areas map", r.Area)
		}
		if r.Level != LevelMust && r.Level != LevelShould {
			return Catalogue{}, fail("level %q is neither %s nor %s", r.Level, LevelMust, LevelShould)
		}
		if strings.TrimSpace(r.Feature) == "" {
			return Catalogue{}, fail("empty feature")
		}
		if !known[r.Feature] {
			return Catalogue{}, fmt.Errorf("spec: requirement %s: %w %q (not in features:)", name, ErrUnknownFeature, r.Feature)
		}
		if strings.TrimSpace(r.Source) == "" {
			return Catalogue{}, fail("empty source")
		}
		if err := checkBasis(r.Basis, r.Source); err != "" {
			return Catalogue{}, fail("%s", err)
		}
		if strings.TrimSpace(r.Text) == "" {
			return Catalogue{}, fail("empty text")
		}
		for _, pn := range r.Profiles {
			if !slices.ContainsFunc(profiles, func(p Profile) bool { return p.Name == pn }) {
				return Catalogue{}, fail("profiles names %q, which is not in profiles:", pn)
			}
		}
		excluded := ""
		if r.Excluded != nil {
			if strings.TrimSpace(*r.Excluded) == "" {
				return Catalogue{}, fail("excluded is present but gives no reason")
			}
			excluded = *r.Excluded
		}
		planned := ""
		if r.Planned != nil {
			if strings.TrimSpace(*r.Planned) == "" {
				return Catalogue{}, fail("planned is present but says nothing")
			}
			if excluded != "" {
				return Catalogue{}, fail("both excluded and planned")
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
			Basis:    r.Basis,
			Source:   r.Source,
			Text:     r.Text,
			Excluded: excluded,
			Planned:  planned,
			Decision: r.Decision,
			Profiles: r.Profiles,
		})
	}
	return Catalogue{Version: f.Version, Requirements: reqs, Areas: areas, Features: features, Profiles: profiles}, nil
}

// checkBasis returns what is wrong with a requirement's basis, or "".
func checkBasis(basis []string, source string) string {
	if len(basis) == 0 {
		return fmt.Sprintf("no basis (want one or more of %s)", strings.Join(Bases, ", "))
	}
	seen := map[string]bool{}
	for _, b := range basis {
		if !slices.Contains(Bases, b) {
			return fmt.Sprintf("basis %q is none of %s", b, strings.Join(Bases, ", "))
		}
		if seen[b] {
			return fmt.Sprintf("basis %q given twice", b)
		}
		seen[b] = true
	}
	hasSection := seedSection.MatchString(source)
	switch {
	case seen[BasisSeed] && !hasSection:
		return fmt.Sprintf("basis seed needs a source naming a seed section, like \"000 [exec]\" (source is %q)", source)
	case !seen[BasisSeed] && hasSection:
		return fmt.Sprintf("source %q names a seed section but the basis has no seed", source)
	}
	return ""
}

var (
	loadOnce   sync.Once
	loadedVer  int
	loadedReqs []Requirement
	loadedArea []Area
	loadedByID map[string]int

	loadedFeat    []Feature
	loadedFeatIdx map[string]int
	loadedProf    []Profile
)

func load() {
	loadOnce.Do(func() {
		c, err := ParseCatalogue(requirementsYAML)
		if err != nil {
			panic("spec: embedded requirements.yaml is invalid: " + err.Error())
		}
		loadedVer, loadedReqs, loadedArea = c.Version, c.Requirements, c.Areas
		loadedFeat, loadedProf = c.Features, c.Profiles
		loadedFeatIdx = make(map[string]int, len(loadedFeat))
		for i, f := range loadedFeat {
			loadedFeatIdx[f.Name] = i
		}
		loadedByID = make(map[string]int, len(loadedReqs))
		for i, r := range loadedReqs {
			loadedByID[r.ID] = i
		}
	})
}

// Version returns the version of the embedded catalogue (CHANGES.md says
// what each version changed). Reports name it.
func Version() int {
	load()
	return loadedVer
}

// Requirements returns the embedded catalogue in document order. The slice
// is a fresh copy on every call. It panics only if the embedded
// requirements.yaml is invalid, which the package tests rule out.
func Requirements() []Requirement {
	load()
	out := make([]Requirement, len(loadedReqs))
	for i, r := range loadedReqs {
		out[i] = r.clone()
	}
	return out
}

// clone copies r so that changing the copy's Basis leaves the catalogue alone.
func (r Requirement) clone() Requirement {
	r.Basis = slices.Clone(r.Basis)
	return r
}

// HasBasis reports whether r rests (also) on basis b.
func (r Requirement) HasBasis(b string) bool { return slices.Contains(r.Basis, b) }

// Lookup returns the requirement with the given ID, if the catalogue has it.
func Lookup(id string) (Requirement, bool) {
	load()
	i, ok := loadedByID[id]
	if !ok {
		return Requirement{}, false
	}
	return loadedReqs[i].clone(), true
}

// Areas returns the areas of the embedded catalogue in the order they first
// appear in the requirement list. The slice is a fresh copy on every call.
func Areas() []Area {
	load()
	return append([]Area(nil), loadedArea...)
}
