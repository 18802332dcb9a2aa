package spec

import (
	"errors"
	"flag"
	"os"
	"slices"
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
	const profs = "profiles:\n  - {name: v1, generation: 1, source: \"000\", openclaw: \"2026.5\", meaning: first, requires: [core]}\n  - {name: v2, generation: 2, source: \"001\", openclaw: \"2026.8\", meaning: second, requires: [core]}\n"
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
		{"malformed driver", head + "features:\n  - {name: core, profiles: [v1, v2], meaning: m}\n  - {name: a, profiles: [v1], driver: \"agent turn\", meaning: m}\n" + profs + req, "malformed driver", nil},
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

func TestProfileSplitRejects(t *testing.T) {
	const head = "version: 2\nareas:\n  CFG: Configuration\n"
	const req = "requirements:\n  - {id: CM-CFG-01, area: CFG, level: MUST, feature: core, basis: [hardening], source: \"000\", text: ok}\n"
	const feats = "features:\n  - {name: core, profiles: [v1, v2], meaning: m}\n  - {name: a, profiles: [v1], meaning: m}\n  - {name: h, profiles: [v1, v2], hook: true, meaning: m}\n"
	prof := func(v1, v2 string) string {
		return "profiles:\n  - {name: v1, generation: 1, source: \"000\", openclaw: x, meaning: m, " + v1 + "}\n  - {name: v2, generation: 2, source: \"001\", openclaw: y, meaning: m, " + v2 + "}\n"
	}
	for _, c := range []struct {
		name, v1, v2, want string
		is                 error
	}{
		{"feature in neither list", "requires: [core], allows: [h]", "requires: [core], allows: [h]", "feature a names profile v1 in its profiles, but v1 neither requires nor allows it", ErrProfileFeatures},
		{"feature in both lists", "requires: [core, a], allows: [a, h]", "requires: [core], allows: [h]", "feature a is in requires and in allows", ErrProfileFeatures},
		{"feature its profiles do not name", "requires: [core, a], allows: [h]", "requires: [core, a], allows: [h]", "profile v2: profile requires/allows do not match the features' profiles: requires names feature a", ErrProfileFeatures},
		{"test hook required", "requires: [core, a, h]", "requires: [core], allows: [h]", "feature h is a test hook", ErrProfileFeatures},
		{"core only allowed", "requires: [a], allows: [core, h]", "requires: [core], allows: [h]", "feature core must be required", ErrProfileFeatures},
		{"unknown name", "requires: [core, a, isolaton], allows: [h]", "requires: [core], allows: [h]", "isolaton", ErrUnknownFeature},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseCatalogue([]byte(head + feats + prof(c.v1, c.v2) + req))
			if err == nil {
				t.Fatal("ParseCatalogue accepted the document")
			}
			if !strings.Contains(err.Error(), c.want) || !errors.Is(err, c.is) {
				t.Errorf("error %q: want it to contain %q and be %v", err, c.want, c.is)
			}
		})
	}
	if _, err := ParseCatalogue([]byte(head + feats + prof("requires: [core, a], allows: [h]", "requires: [core], allows: [h]") + req)); err != nil {
		t.Errorf("a consistent split was rejected: %v", err)
	}
}

// The profiles' required features as decided from the seeds (spec/CHANGES.md,
// 2026-12-01 wave 4): the security boundary, the snapshot executor, TypeScript
// and the pending-call limit are what page 000 describes, so v1 requires them;
// page 001 makes node:vm (no security boundary, no snapshot) a valid executor,
// so v2 only allows isolation and snapshot-executor.
func TestProfileRequiredFeatures(t *testing.T) {
	v1, err := LookupProfile("v1")
	if err != nil {
		t.Fatal(err)
	}
	v2, err := LookupProfile("v2")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{FeatureCore, "isolation", "snapshot-executor", "typescript", "pending-call-limit"} {
		if !v1.Requires(f) {
			t.Errorf("v1 does not require %s (required: %v)", f, v1.Required)
		}
	}
	for _, f := range []string{"isolation", "snapshot-executor", "node-executor", "executor-choice"} {
		if v2.Requires(f) || !v2.Has(f) {
			t.Errorf("v2 must allow, not require, %s (required: %v, allowed: %v)", f, v2.Required, v2.Allowed)
		}
	}
	for _, f := range []string{"javascript-only", "bridge-queue", "run-lifecycle-messages"} {
		if !v2.Requires(f) {
			t.Errorf("v2 does not require %s (required: %v)", f, v2.Required)
		}
	}
	for _, p := range []Profile{v1, v2} {
		if len(p.Required)+len(p.Allowed) != len(p.Features) {
			t.Errorf("%s: required %v and allowed %v do not split its features %v", p.Name, p.Required, p.Allowed, p.Features)
		}
	}
	// Driven features: their specs reach the behaviour only through a
	// surface §3 lets an undeclaring target ignore (audit F2/F3); the others
	// run when undeclared.
	for f, want := range map[string]string{"agent-turn": "agent.turn", "trajectory": "run.trajectory", "sandbox": "run.prepare sandbox",
		"namespaces": "run.prepare namespaces", "hooks": "run.prepare hooks", "mcp": "run.prepare mcpServers", "session-store": "run.prepare session", "results": "",
		"isolation": "", "telemetry": "", "typescript": "", "yield": "", "pending-call-limit": "", "snapshot-executor": "", "tools-api": "", "shell-exec": ""} {
		if got, err := LookupFeature(f); err != nil || got.Driver != want {
			t.Errorf("feature %s: driver %q (%v), want %q", f, got.Driver, err, want)
		}
	}
	got := v1.MissingRequired([]string{"yield", "shell-exec"})
	if !slices.Contains(got, "isolation") || slices.Contains(got, FeatureCore) || slices.Contains(got, "yield") {
		t.Errorf("v1.MissingRequired([yield shell-exec]) = %v: want isolation in it, never core or a declared one", got)
	}
}
