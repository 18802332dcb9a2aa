package spec

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// FeatureCore is the feature that is always in force (protocol.md §9).
const FeatureCore = "core"

// DefaultProfile is the profile a target implements when it declares none,
// and the profile the reference serves by default.
const DefaultProfile = "v1"

// Typed errors of features and profiles; match them with errors.Is.
var (
	// ErrUnknownFeature: a name that is not in the features section of
	// requirements.yaml (a typo must be an error, never a skipped spec).
	ErrUnknownFeature = errors.New("unknown feature")
	// ErrUnknownProfile: a profile name that is not in the profiles section.
	ErrUnknownProfile = errors.New("unknown profile")
	// ErrExclusiveFeatures: a feature set holds two features that exclude
	// each other (typescript and javascript-only, pending-call-limit and
	// bridge-queue).
	ErrExclusiveFeatures = errors.New("mutually exclusive features")
	// ErrFeatureNotInProfile: a feature set declared for a profile holds a
	// feature that the profile does not define.
	ErrFeatureNotInProfile = errors.New("feature not in profile")
	// ErrProfileFeatures: a profile's requires/allows lists disagree with
	// the features' profiles lists (a feature named by neither, by both, or
	// by a profile its profiles list does not name).
	ErrProfileFeatures = errors.New("profile requires/allows do not match the features' profiles")
)

// Feature is one capability a target can declare in initialize
// (requirements.yaml features:, protocol.md §9).
type Feature struct {
	// Name is the declared name, e.g. "bridge-queue".
	Name string
	// Meaning is what declaring it means the target implements.
	Meaning string
	// Profiles are the profiles (contract generations) that define it, in
	// file order, e.g. ["v2"].
	Profiles []string
	// Excludes are the features a target must not declare together with
	// this one (symmetric), sorted.
	Excludes []string
	// Hook marks a test hook that is no contract feature (fault-injection).
	Hook bool
	// Driver is the harness-only surface through which the harness drives
	// the feature (driver:, protocol.md §3 and §9), "" when its specs need
	// none. Either a method, "agent.turn", or a member, "run.prepare
	// sandbox": one that §3 lets a target without the feature ignore. A
	// required feature with a driver that the target does not declare gets
	// one verdict (framework.absentFeature); one without is judged on
	// behaviour.
	Driver string
}

// Profile is one generation of the contract: a named set of features plus
// the behaviour choices where the two source pages disagree.
type Profile struct {
	// Name is "v1" or "v2".
	Name string
	// Generation is the contract generation, 1 or 2.
	Generation int
	// Source is the seed page it follows: "000" or "001".
	Source string
	// OpenClaw is the OpenClaw release range it describes, e.g. "2026.5 to 2026.7.35".
	OpenClaw string
	// Meaning says what sets the profile apart.
	Meaning string
	// Features are the features the profile defines, in features: order.
	Features []string
	// Required are the features a target of the profile must declare
	// (requires:, in features: order; core is always one): a target that
	// does not declare one fails that feature's requirements as not
	// implemented. Allowed are the others of Features (allows:), whose
	// requirements skip when the target does not declare them.
	Required, Allowed []string
}

// Has reports whether the profile defines feature f.
func (p Profile) Has(f string) bool { return slices.Contains(p.Features, f) }

// Requires reports whether the profile requires feature f (core always).
func (p Profile) Requires(f string) bool { return slices.Contains(p.Required, f) }

// MissingRequired returns the required features of p that declared does not
// hold, in features: order (core is never missing: it is always in force).
func (p Profile) MissingRequired(declared []string) []string {
	var out []string
	for _, f := range p.Required {
		if f != FeatureCore && !slices.Contains(declared, f) {
			out = append(out, f)
		}
	}
	return out
}

type rawFeature struct {
	Name     string   `yaml:"name"`
	Profiles []string `yaml:"profiles"`
	Excludes []string `yaml:"excludes"`
	Hook     bool     `yaml:"hook"`
	Driver   string   `yaml:"driver"`
	Meaning  string   `yaml:"meaning"`
}

type rawProfile struct {
	Name       string   `yaml:"name"`
	Generation int      `yaml:"generation"`
	Source     string   `yaml:"source"`
	OpenClaw   string   `yaml:"openclaw"`
	Meaning    string   `yaml:"meaning"`
	Requires   []string `yaml:"requires"`
	Allows     []string `yaml:"allows"`
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// driverRE is a feature's driver: a method ("agent.turn") or a run.prepare
// member ("run.prepare sandbox", "run.prepare tools[].directOnly").
var driverRE = regexp.MustCompile(`^([a-z]+\.[a-zA-Z]+|run\.prepare [a-zA-Z]+(\[\]\.[a-zA-Z]+)?)$`)

// parseFeatures validates the features and profiles sections: names are
// lower-case kebab words and unique, core is present and in every profile,
// every profile a feature names exists, every profile has a positive
// unique generation, a source and a release range, excludes name known
// features other than itself and are symmetric, and no profile defines
// both sides of an exclusion; every profile's requires and allows split
// exactly the features whose profiles name it (checkProfileSplit).
func parseFeatures(rf []rawFeature, rp []rawProfile) ([]Feature, []Profile, error) {
	if len(rp) == 0 {
		return nil, nil, errors.New("spec: no profiles")
	}
	profiles := make([]Profile, 0, len(rp))
	profIdx := map[string]int{}
	gens := map[int]bool{}
	for i, p := range rp {
		if !nameRE.MatchString(p.Name) {
			return nil, nil, fmt.Errorf("spec: profile #%d: malformed name %q", i+1, p.Name)
		}
		if _, dup := profIdx[p.Name]; dup {
			return nil, nil, fmt.Errorf("spec: profile %s: duplicate name", p.Name)
		}
		if p.Generation < 1 || gens[p.Generation] {
			return nil, nil, fmt.Errorf("spec: profile %s: generation %d is not a positive, unique integer", p.Name, p.Generation)
		}
		gens[p.Generation] = true
		if strings.TrimSpace(p.Source) == "" || strings.TrimSpace(p.OpenClaw) == "" || strings.TrimSpace(p.Meaning) == "" {
			return nil, nil, fmt.Errorf("spec: profile %s: source, openclaw and meaning must all be given", p.Name)
		}
		profIdx[p.Name] = i
		profiles = append(profiles, Profile{Name: p.Name, Generation: p.Generation, Source: p.Source, OpenClaw: p.OpenClaw, Meaning: strings.TrimSpace(p.Meaning)})
	}
	if _, ok := profIdx[DefaultProfile]; !ok {
		return nil, nil, fmt.Errorf("spec: the default profile %s is not in profiles", DefaultProfile)
	}

	features := make([]Feature, 0, len(rf))
	featIdx := map[string]int{}
	for i, f := range rf {
		if !nameRE.MatchString(f.Name) {
			return nil, nil, fmt.Errorf("spec: feature #%d: malformed name %q", i+1, f.Name)
		}
		if f.Driver != "" && !driverRE.MatchString(f.Driver) {
			return nil, nil, fmt.Errorf("spec: feature %s: malformed driver %q (a method such as agent.turn, or run.prepare <member>)", f.Name, f.Driver)
		}
		if _, dup := featIdx[f.Name]; dup {
			return nil, nil, fmt.Errorf("spec: feature %s: duplicate name", f.Name)
		}
		if strings.TrimSpace(f.Meaning) == "" {
			return nil, nil, fmt.Errorf("spec: feature %s: empty meaning", f.Name)
		}
		if len(f.Profiles) == 0 {
			return nil, nil, fmt.Errorf("spec: feature %s: no profiles", f.Name)
		}
		for _, p := range f.Profiles {
			i, ok := profIdx[p]
			if !ok {
				return nil, nil, fmt.Errorf("spec: feature %s: %w %q", f.Name, ErrUnknownProfile, p)
			}
			if profiles[i].Has(f.Name) {
				return nil, nil, fmt.Errorf("spec: feature %s: profile %s named twice", f.Name, p)
			}
			profiles[i].Features = append(profiles[i].Features, f.Name)
		}
		featIdx[f.Name] = i
		ex := slices.Clone(f.Excludes)
		sort.Strings(ex)
		features = append(features, Feature{Name: f.Name, Meaning: strings.TrimSpace(f.Meaning), Profiles: slices.Clone(f.Profiles), Excludes: ex, Hook: f.Hook, Driver: f.Driver})
	}
	core, ok := featIdx[FeatureCore]
	if !ok {
		return nil, nil, fmt.Errorf("spec: feature %s is missing", FeatureCore)
	}
	if len(features[core].Profiles) != len(profiles) {
		return nil, nil, fmt.Errorf("spec: feature %s must be in every profile", FeatureCore)
	}
	for _, f := range features {
		for _, x := range f.Excludes {
			j, ok := featIdx[x]
			switch {
			case !ok:
				return nil, nil, fmt.Errorf("spec: feature %s: excludes %w %q", f.Name, ErrUnknownFeature, x)
			case x == f.Name || x == FeatureCore:
				return nil, nil, fmt.Errorf("spec: feature %s: cannot exclude %s", f.Name, x)
			case !slices.Contains(features[j].Excludes, f.Name):
				return nil, nil, fmt.Errorf("spec: feature %s excludes %s but %s does not exclude %s (exclusions are symmetric)", f.Name, x, x, f.Name)
			}
		}
	}
	for i, p := range profiles {
		if err := checkExclusive(features, featIdx, p.Features); err != nil {
			return nil, nil, fmt.Errorf("spec: profile %s: %w", p.Name, err)
		}
		req, allow, err := checkProfileSplit(features, featIdx, p, rp[i])
		if err != nil {
			return nil, nil, fmt.Errorf("spec: profile %s: %w", p.Name, err)
		}
		profiles[i].Required, profiles[i].Allowed = req, allow
	}
	return features, profiles, nil
}

// checkProfileSplit checks a profile's requires and allows against the
// features' profiles lists and returns them in features: order. Every name
// must be a known feature, named once, in one list only; together they
// must be exactly p.Features; core must be required and a test hook
// (hook: true) never. The error wraps ErrProfileFeatures (or
// ErrUnknownFeature) and names the offending feature.
func checkProfileSplit(features []Feature, idx map[string]int, p Profile, rp rawProfile) (required, allowed []string, err error) {
	seen := map[string]string{}
	for _, l := range []struct {
		key   string
		names []string
	}{{"requires", rp.Requires}, {"allows", rp.Allows}} {
		for _, n := range l.names {
			j, ok := idx[n]
			switch {
			case !ok:
				return nil, nil, fmt.Errorf("%s: %w %q", l.key, ErrUnknownFeature, n)
			case seen[n] != "":
				return nil, nil, fmt.Errorf("%w: feature %s is in %s and in %s", ErrProfileFeatures, n, seen[n], l.key)
			case !p.Has(n):
				return nil, nil, fmt.Errorf("%w: %s names feature %s, whose profiles %v do not name %s", ErrProfileFeatures, l.key, n, features[j].Profiles, p.Name)
			case l.key == "requires" && features[j].Hook:
				return nil, nil, fmt.Errorf("%w: feature %s is a test hook and cannot be required", ErrProfileFeatures, n)
			}
			seen[n] = l.key
		}
	}
	for _, f := range p.Features {
		switch seen[f] {
		case "":
			return nil, nil, fmt.Errorf("%w: feature %s names profile %s in its profiles, but %s neither requires nor allows it", ErrProfileFeatures, f, p.Name, p.Name)
		case "requires":
			required = append(required, f)
		default:
			allowed = append(allowed, f)
		}
	}
	if seen[FeatureCore] != "requires" {
		return nil, nil, fmt.Errorf("%w: feature %s must be required", ErrProfileFeatures, FeatureCore)
	}
	return required, allowed, nil
}

// checkExclusive returns an ErrExclusiveFeatures error naming the first
// excluded pair in set (names must be known).
func checkExclusive(features []Feature, idx map[string]int, set []string) error {
	for i, a := range set {
		for _, b := range set[i+1:] {
			if slices.Contains(features[idx[a]].Excludes, b) {
				return fmt.Errorf("%w: %s and %s", ErrExclusiveFeatures, a, b)
			}
		}
	}
	return nil
}

// Features returns the embedded catalogue's features in file order; the
// slice is a fresh copy.
func Features() []Feature {
	load()
	out := make([]Feature, len(loadedFeat))
	for i, f := range loadedFeat {
		out[i] = f.clone()
	}
	return out
}

// FeatureNames returns every feature name, sorted.
func FeatureNames() []string {
	load()
	out := make([]string, 0, len(loadedFeat))
	for _, f := range loadedFeat {
		out = append(out, f.Name)
	}
	sort.Strings(out)
	return out
}

func (f Feature) clone() Feature {
	f.Profiles = slices.Clone(f.Profiles)
	f.Excludes = slices.Clone(f.Excludes)
	return f
}

// LookupFeature returns the named feature, or an error wrapping
// ErrUnknownFeature that lists the known names.
func LookupFeature(name string) (Feature, error) {
	load()
	i, ok := loadedFeatIdx[name]
	if !ok {
		return Feature{}, fmt.Errorf("%w %q (known: %s)", ErrUnknownFeature, name, strings.Join(FeatureNames(), ", "))
	}
	return loadedFeat[i].clone(), nil
}

// CheckFeatures returns an error wrapping ErrUnknownFeature naming every
// name in names that is not a feature, or nil.
func CheckFeatures(names []string) error {
	load()
	var unknown []string
	for _, n := range names {
		if _, ok := loadedFeatIdx[n]; !ok {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s (known: %s)", ErrUnknownFeature, strings.Join(unknown, ", "), strings.Join(FeatureNames(), ", "))
}

// Profiles returns the embedded catalogue's profiles in file order (v1, v2);
// the slice is a fresh copy.
func Profiles() []Profile {
	load()
	out := make([]Profile, len(loadedProf))
	for i, p := range loadedProf {
		p.Features = slices.Clone(p.Features)
		p.Required, p.Allowed = slices.Clone(p.Required), slices.Clone(p.Allowed)
		out[i] = p
	}
	return out
}

// ProfileNames returns the profile names in file order.
func ProfileNames() []string {
	load()
	out := make([]string, len(loadedProf))
	for i, p := range loadedProf {
		out[i] = p.Name
	}
	return out
}

// LookupProfile returns the named profile; "" means DefaultProfile. An
// unknown name gives an error wrapping ErrUnknownProfile.
func LookupProfile(name string) (Profile, error) {
	if name == "" {
		name = DefaultProfile
	}
	for _, p := range Profiles() {
		if p.Name == name {
			return p, nil
		}
	}
	return Profile{}, fmt.Errorf("%w %q (known: %s)", ErrUnknownProfile, name, strings.Join(ProfileNames(), ", "))
}

// CheckFeatureSet checks a target's declared features against its declared
// profile ("" means DefaultProfile): every name must be a feature
// (ErrUnknownFeature), the profile must exist (ErrUnknownProfile), no
// two may exclude each other (ErrExclusiveFeatures, checked first), and every
// feature must be one the profile defines (ErrFeatureNotInProfile). The
// error names the offending features.
func CheckFeatureSet(profile string, features []string) error {
	p, err := LookupProfile(profile)
	if err != nil {
		return err
	}
	if err := CheckFeatures(features); err != nil {
		return err
	}
	load()
	if err := checkExclusive(loadedFeat, loadedFeatIdx, features); err != nil {
		return err
	}
	var outside []string
	for _, f := range features {
		if !p.Has(f) {
			outside = append(outside, f)
		}
	}
	if len(outside) > 0 {
		return fmt.Errorf("%w %s: %s", ErrFeatureNotInProfile, p.Name, strings.Join(outside, ", "))
	}
	return nil
}

// FeatureTable is the feature table of protocol.md §9, generated from the
// features section (spec/features_test.go keeps protocol.md equal to it):
// one row per feature in file order with its profiles, the profiles that
// require it (requires:; the others only allow it), exclusions, driver and
// meaning.
func FeatureTable() string {
	var b strings.Builder
	b.WriteString("| feature | profiles | required by | excludes | driven through | declaring it means the target implements |\n|---|---|---|---|---|---|\n")
	profs := Profiles()
	for _, f := range Features() {
		ex := "—"
		if len(f.Excludes) > 0 {
			ex = "`" + strings.Join(f.Excludes, "`, `") + "`"
		}
		var req []string
		for _, p := range profs {
			if p.Requires(f.Name) {
				req = append(req, p.Name)
			}
		}
		rq := "—"
		if len(req) > 0 {
			rq = strings.Join(req, ", ")
		}
		drv := "—"
		if f.Driver != "" {
			drv = "`" + f.Driver + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", f.Name, strings.Join(f.Profiles, ", "), rq, ex, drv, strings.ReplaceAll(f.Meaning, "|", `\|`))
	}
	return b.String()
}
