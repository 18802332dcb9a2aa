// Package sources loads what CONFORMANCE.md and the comparison site
// (tools/site) are generated from: the reference's verdicts, read from the
// Ginkgo JSON report (report.json) of a run of every suite per profile, and
// the committed conformance-report.yaml of each other implementation
// (DefaultPeers). Both generators read them through this package, so the two
// views cannot disagree about a verdict.
package sources

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/goccy/go-yaml"
	"github.com/onsi/ginkgo/v2/types"
)

// DefaultPeers are the committed reports of other implementations that
// CONFORMANCE.md and the site show as columns ("Title=path", path relative
// to the module root).
var DefaultPeers = []string{
	"OpenClaw 2026.7.35=reports/openclaw-2026.7.35/conformance-report.yaml",
	"OpenClaw 2026.9.6 (v2)=reports/openclaw-2026.9.6/conformance-report.yaml",
	"OpenClaw 2026.9.6 (v2, QuickJS)=reports/openclaw-2026.9.6-quickjs/conformance-report.yaml",
}

// ProfileRun is one verdict column of the reference: the specs of a run of
// every suite against the reference under Profile ("v1", "v2").
type ProfileRun struct {
	Profile string
	Specs   []report.SpecResult
}

// ReadReport reads a Ginkgo JSON report (report.json) of one suite run. It
// fails when the file is unreadable, is not JSON, or holds other than
// exactly one suite report.
func ReadReport(path string) (types.Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return types.Report{}, err
	}
	var reports []types.Report
	if err := json.Unmarshal(b, &reports); err != nil {
		return types.Report{}, fmt.Errorf("%s: %w", path, err)
	}
	if len(reports) != 1 {
		return types.Report{}, fmt.Errorf("%s: want one suite report, got %d", path, len(reports))
	}
	return reports[0], nil
}

// ReadSpecs reads the specs of a Ginkgo JSON report (ReadReport).
func ReadSpecs(path string) ([]report.SpecResult, error) {
	r, err := ReadReport(path)
	if err != nil {
		return nil, err
	}
	return report.Specs(r), nil
}

// Peer is one column: another implementation's committed conformance report.
type Peer struct {
	Title  string
	Path   string // relative to the module root, as given
	Report report.Conformance
}

// LoadConformance reads a conformance-report.yaml (report.Conformance).
func LoadConformance(path string) (report.Conformance, error) {
	var c report.Conformance
	b, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	if err := yaml.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// LoadPeers reads "Title=path" entries, with paths relative to root.
func LoadPeers(root string, entries []string) ([]Peer, error) {
	var out []Peer
	for _, e := range entries {
		title, path, ok := strings.Cut(e, "=")
		if !ok || title == "" || path == "" {
			return nil, fmt.Errorf("--peer %q: want \"Column title=path/to/conformance-report.yaml\"", e)
		}
		c, err := LoadConformance(filepath.Join(root, path))
		if err != nil {
			return nil, fmt.Errorf("peer %q: %w", title, err)
		}
		out = append(out, Peer{Title: title, Path: path, Report: c})
	}
	return out, nil
}

// ProfileNote is ", profile <name>" for a peer report that names the
// profile it was judged against, else "".
func (p Peer) ProfileNote() string {
	if p.Report.Profile.Name == "" {
		return ""
	}
	return ", profile " + p.Report.Profile.Name
}

// Line is the report's line for requirement id, and false when the run has
// no verdict for it.
func (p Peer) Line(id string) (report.RequirementLine, bool) {
	for _, r := range p.Report.Requirements {
		if r.ID == id {
			return r, true
		}
	}
	return report.RequirementLine{}, false
}

// Verdict is the peer's cell for requirement id: its verdict, "not
// drivable" for a skip its adapter declared, "fail (baselined)" for an
// xfail, "blocked by CM-X" for a blocked requirement, "—" when the run has
// no verdict for it.
func (p Peer) Verdict(id string) string {
	r, ok := p.Line(id)
	if !ok {
		return "—"
	}
	switch r.Verdict {
	case report.XFail:
		return "fail (baselined)"
	case report.Blocked:
		if len(r.BlockedBy) > 0 {
			return "blocked by " + strings.Join(r.BlockedBy, " ")
		}
	case report.Skip:
		if NotDrivable(r) {
			return "not drivable"
		}
	}
	return string(r.Verdict)
}

// NotDrivable reports whether a skipped requirement line was skipped
// because the target declared it cannot drive a spec
// (protocol.NotDrivablePrefix).
func NotDrivable(r report.RequirementLine) bool {
	for _, s := range r.Specs {
		if strings.HasPrefix(s.Message, protocol.NotDrivablePrefix) {
			return true
		}
	}
	return false
}

// ReferenceVerdict is the reference's cell for requirement r in a run under
// profile: the verdict v, "blocked by CM-X …" for a blocked one (blockedBy
// from report.Evaluation.BlockedBy), and "n/a (not in <profile>)" when the
// profile does not define r's feature or r does not apply to it.
func ReferenceVerdict(profile string, r spec.Requirement, v report.Verdict, blockedBy []string) string {
	cell := string(v)
	if v == report.Blocked && len(blockedBy) > 0 {
		cell = "blocked by " + strings.Join(blockedBy, " ")
	}
	if p, err := spec.LookupProfile(profile); err == nil && (!p.Has(r.Feature) || !r.AppliesTo(p.Name)) {
		cell = "n/a (not in " + p.Name + ")"
	}
	return cell
}
