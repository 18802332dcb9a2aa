package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/goccy/go-yaml"
)

// DefaultPeers are the committed reports of other implementations that
// CONFORMANCE.md shows as columns ("Title=path", path relative to the module
// root).
var DefaultPeers = []string{
	"OpenClaw 2026.7.35=reports/openclaw-2026.7.35/conformance-report.yaml",
	"OpenClaw 2026.9.6 (v2)=reports/openclaw-2026.9.6/conformance-report.yaml",
	"OpenClaw 2026.9.6 (v2, QuickJS)=reports/openclaw-2026.9.6-quickjs/conformance-report.yaml",
}

// profileNote is ", profile <name>" for a peer report that names the
// profile it was judged against, else "".
func (p Peer) profileNote() string {
	if p.Report.Profile.Name == "" {
		return ""
	}
	return ", profile " + p.Report.Profile.Name
}

// Peer is one column: another implementation's committed conformance report.
type Peer struct {
	Title  string
	Path   string
	Report report.Conformance
}

// LoadPeers reads "Title=path" entries, with paths relative to root.
func LoadPeers(root string, entries []string) ([]Peer, error) {
	var out []Peer
	for _, e := range entries {
		title, path, ok := strings.Cut(e, "=")
		if !ok || title == "" || path == "" {
			return nil, fmt.Errorf("--peer %q: want \"Column title=path/to/conformance-report.yaml\"", e)
		}
		b, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			return nil, fmt.Errorf("peer %q: %w", title, err)
		}
		var c report.Conformance
		if err := yaml.Unmarshal(b, &c); err != nil {
			return nil, fmt.Errorf("peer %q: %s: %w", title, path, err)
		}
		out = append(out, Peer{Title: title, Path: path, Report: c})
	}
	return out, nil
}

// Verdict is the peer's cell for requirement id: its verdict, "not
// drivable" for a skip its adapter declared, "fail (baselined)" for an
// xfail, "blocked by CM-X" for a blocked requirement, "—" when the run has
// no verdict for it.
func (p Peer) Verdict(id string) string {
	for _, r := range p.Report.Requirements {
		if r.ID != id {
			continue
		}
		switch r.Verdict {
		case report.XFail:
			return "fail (baselined)"
		case report.Blocked:
			if len(r.BlockedBy) > 0 {
				return "blocked by " + strings.Join(r.BlockedBy, " ")
			}
		case report.Skip:
			for _, s := range r.Specs {
				if strings.HasPrefix(s.Message, protocol.NotDrivablePrefix) {
					return "not drivable"
				}
			}
		}
		return string(r.Verdict)
	}
	return "—"
}
