package report

import (
	"fmt"

	"github.com/codemode-conformance/codemode/spec"
)

// Profile names the contract profile a run judged (spec.Profiles,
// protocol.md §9) and where the choice came from.
type Profile struct {
	// Name is the judged profile, "v1" or "v2".
	Name string `yaml:"name"`
	// Generation, Page and OpenClaw describe it (spec.Profile).
	Generation int    `yaml:"generation"`
	Page       string `yaml:"page"`
	OpenClaw   string `yaml:"openclaw"`
	// Declared is the profile the target declared in initialize ("" when it
	// declared none, which means v1).
	Declared string `yaml:"declared,omitempty"`
	// Requested is --profile, if given.
	Requested string `yaml:"requested,omitempty"`
}

// NewProfile describes the judged profile name; declared and requested are
// recorded as given. An empty or unknown name gives just the name.
func NewProfile(name, declared, requested string) Profile {
	p := Profile{Name: name, Declared: declared, Requested: requested}
	if name == "" {
		return p
	}
	if sp, err := spec.LookupProfile(name); err == nil {
		p.Generation, p.Page, p.OpenClaw = sp.Generation, sp.Source, sp.OpenClaw
	}
	return p
}

// Line is the one-line description of summary.md and report.html, e.g.
// "v2 (generation 2, page 001, OpenClaw 2026.8 to 2026.9.6; declared by the
// target: v2)", or "" before a target was connected.
func (p Profile) Line() string {
	if p.Name == "" {
		return ""
	}
	decl := p.Declared
	if decl == "" {
		decl = "none, which means " + spec.DefaultProfile
	}
	return fmt.Sprintf("%s (generation %d, page %s, OpenClaw %s; declared by the target: %s)", p.Name, p.Generation, p.Page, p.OpenClaw, decl)
}
