package spec

import (
	"errors"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the feature table of protocol.md from requirements.yaml")

const (
	tableBegin = "<!-- features:begin (generated from requirements.yaml features:; go test ./spec -run TestProtocolFeatureTable -update) -->\n"
	tableEnd   = "<!-- features:end -->\n"
)

// TestProtocolFeatureTable keeps the table of protocol.md §9 equal to the
// features section: the section is the single source of feature names.
func TestProtocolFeatureTable(t *testing.T) {
	const path = "protocol.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, tableBegin), strings.Index(doc, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("protocol.md has no %q ... %q markers around the §9 feature table", strings.TrimSpace(tableBegin), strings.TrimSpace(tableEnd))
	}
	got, want := doc[i+len(tableBegin):j], FeatureTable()
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(doc[:i+len(tableBegin)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("protocol.md §9 feature table differs from requirements.yaml features: (-protocol.md +want); run go test ./spec -run TestProtocolFeatureTable -update\n%s", cmp.Diff(got, want))
}

func TestEveryFeatureIsUsedOrAHook(t *testing.T) {
	used := map[string]bool{}
	for _, r := range Requirements() {
		used[r.Feature] = true
	}
	for _, f := range Features() {
		if !used[f.Name] && !f.Hook {
			t.Errorf("feature %s: no requirement names it and it is no test hook", f.Name)
		}
	}
}

func TestProfilesAsData(t *testing.T) {
	if got := ProfileNames(); !cmp.Equal(got, []string{"v1", "v2"}) {
		t.Fatalf("ProfileNames() = %v, want [v1 v2]", got)
	}
	v1, err := LookupProfile("")
	if err != nil || v1.Name != "v1" || v1.Generation != 1 || v1.Source != "000" {
		t.Errorf("LookupProfile(\"\") = %+v, %v; want v1, generation 1, source 000", v1, err)
	}
	v2, _ := LookupProfile("v2")
	for _, c := range []struct {
		p    Profile
		f    string
		want bool
	}{
		{v1, "typescript", true}, {v1, "javascript-only", false}, {v1, "pending-call-limit", true}, {v1, "bridge-queue", false},
		{v2, "typescript", false}, {v2, "javascript-only", true}, {v2, "run-lifecycle-messages", true}, {v2, "bridge-queue", true},
		{v1, "core", true}, {v2, "core", true},
	} {
		if got := c.p.Has(c.f); got != c.want {
			t.Errorf("profile %s Has(%q) = %v, want %v", c.p.Name, c.f, got, c.want)
		}
	}
	if _, err := LookupProfile("v3"); !errors.Is(err, ErrUnknownProfile) {
		t.Errorf("LookupProfile(v3) = %v, want ErrUnknownProfile", err)
	}
}

func TestCheckFeatureSet(t *testing.T) {
	for _, c := range []struct {
		profile  string
		features []string
		want     error
	}{
		{"v1", []string{"core", "typescript", "pending-call-limit"}, nil},
		{"", []string{"core", "yield"}, nil},
		{"v2", []string{"core", "javascript-only", "run-lifecycle-messages"}, nil},
		{"v1", []string{"core", "typscript"}, ErrUnknownFeature},
		{"v9", []string{"core"}, ErrUnknownProfile},
		{"v1", []string{"core", "bridge-queue"}, ErrFeatureNotInProfile},
		{"v2", []string{"core", "typescript"}, ErrFeatureNotInProfile},
		{"v1", []string{"core", "typescript", "javascript-only"}, ErrExclusiveFeatures},
		{"v2", []string{"bridge-queue", "pending-call-limit"}, ErrExclusiveFeatures},
	} {
		err := CheckFeatureSet(c.profile, c.features)
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("CheckFeatureSet(%q, %v) = %v, want %v", c.profile, c.features, err, c.want)
		}
	}
	// Exclusions hold across profiles too: a set outside every profile.
	if err := checkExclusive(loadedFeat, loadedFeatIdx, []string{"typescript", "javascript-only"}); !errors.Is(err, ErrExclusiveFeatures) {
		t.Errorf("typescript with javascript-only: %v, want ErrExclusiveFeatures", err)
	}
	if err := CheckFeatures([]string{"core", "isolaton"}); !errors.Is(err, ErrUnknownFeature) || !strings.Contains(err.Error(), "isolaton") {
		t.Errorf("CheckFeatures with a typo = %v, want ErrUnknownFeature naming it", err)
	}
}

func TestParseFeaturesRejects(t *testing.T) {
	const req = "requirements:\n  - {id: CM-CFG-01, area: CFG, level: MUST, feature: core, basis: [hardening], source: \"000\", text: ok}\n"
	const profs = "profiles:\n  - {name: v1, generation: 1, source: \"000\", openclaw: \"2026.5\", meaning: first}\n  - {name: v2, generation: 2, source: \"001\", openclaw: \"2026.8\", meaning: second}\n"
	const head = "version: 2\nareas:\n  CFG: Configuration\n"
	for _, c := range []struct {
		name, doc, wantErr string
		is                 error
	}{
		{"requirement names an unknown feature", head + "features:\n  - {name: core, profiles: [v1, v2], meaning: m}\n" + profs +
			"requirements:\n  - {id: CM-CFG-01, area: CFG, level: MUST, feature: cor, basis: [hardening], source: \"000\", text: ok}\n", "CM-CFG-01", ErrUnknownFeature},
		{"unknown profile", head + "features:\n  - {name: core, profiles: [v1, v3], meaning: m}\n" + profs + req, "core", ErrUnknownProfile},
		{"no core", head + "features:\n  - {name: yield, profiles: [v1], meaning: m}\n" + profs + req, "core is missing", nil},
		{"core not in every profile", head + "features:\n  - {name: core, profiles: [v1], meaning: m}\n" + profs + req, "every profile", nil},
		{"duplicate feature", head + "features:\n  - {name: core, profiles: [v1, v2], meaning: m}\n  - {name: core, profiles: [v1], meaning: m}\n" + profs + req, "duplicate", nil},
		{"malformed name", head + "features:\n  - {name: core, profiles: [v1, v2], meaning: m}\n  - {name: Bad_Name, profiles: [v1], meaning: m}\n" + profs + req, "malformed", nil},
		{"empty meaning", head + "features:\n  - {name: core, profiles: [v1, v2], meaning: \" \"}\n" + profs + req, "empty meaning", nil},
		{"asymmetric exclusion", head + "features:\n  - {name: core, profiles: [v1, v2], meaning: m}\n  - {name: a, profiles: [v1], excludes: [b], meaning: m}\n  - {name: b, profiles: [v2], meaning: m}\n" + profs + req, "symmetric", nil},
		{"exclusion of an unknown feature", head + "features:\n  - {name: core, profiles: [v1, v2], meaning: m}\n  - {name: a, profiles: [v1], excludes: [c], meaning: m}\n" + profs + req, "excludes", ErrUnknownFeature},
		{"profile defines both sides", head + "features:\n  - {name: core, profiles: [v1, v2], meaning: m}\n  - {name: a, profiles: [v1], excludes: [b], meaning: m}\n  - {name: b, profiles: [v1], excludes: [a], meaning: m}\n" + profs + req, "profile v1", ErrExclusiveFeatures},
		{"no profiles", head + "features:\n  - {name: core, profiles: [v1, v2], meaning: m}\n" + req, "no profiles", nil},
		{"duplicate generation", head + "features:\n  - {name: core, profiles: [v1, v2], meaning: m}\nprofiles:\n  - {name: v1, generation: 1, source: \"000\", openclaw: x, meaning: m}\n  - {name: v2, generation: 1, source: \"001\", openclaw: y, meaning: m}\n" + req, "generation", nil},
		{"no default profile", head + "features:\n  - {name: core, profiles: [v2], meaning: m}\nprofiles:\n  - {name: v2, generation: 2, source: \"001\", openclaw: y, meaning: m}\n" + req, "default profile", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseCatalogue([]byte(c.doc))
			if err == nil {
				t.Fatal("ParseCatalogue accepted the document")
			}
			if !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("error %q does not contain %q", err, c.wantErr)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %q is not %v", err, c.is)
			}
		})
	}
}
