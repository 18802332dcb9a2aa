package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/targets/openclaw"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/codemode-conformance/codemode/tools/sources"
)

// ErrNotJudged is Load's error for a release with neither a committed
// conformance report nor a drivability.json saying it cannot be driven.
var ErrNotJudged = errors.New("release not judged")

// Release is one column of the matrix: a pinned OpenClaw release and what
// reports/openclaw-<version>/ holds for it.
type Release struct {
	Version string `json:"version"`
	// Dir is reports/openclaw-<version>, relative to the module root.
	Dir string `json:"dir"`
	// Report is its committed conformance-report.yaml, nil when the
	// adapters cannot drive it (Drivability says why).
	Report *sources.Peer `json:"-"`
	// Drivability is its drivability.json (make openclaw-matrix), nil when
	// the folder has none (the two releases judged before the matrix).
	Drivability *openclaw.Drivability `json:"drivability,omitempty"`
}

// Judged reports whether the release has verdicts (a report).
func (r Release) Judged() bool { return r.Report != nil }

// Profile is the profile the release was judged under ("" when not judged).
func (r Release) Profile() string {
	if r.Report == nil {
		return ""
	}
	return r.Report.Report.Profile.Name
}

// Load reads the releases' folders under reportsDir (reports/openclaw-<v>/:
// conformance-report.yaml through sources.LoadPeers, drivability.json) and
// returns them oldest first (CompareVersions), whatever the order given. A
// drivability.json that says "not drivable" wins over a report beside it (a
// report of an older adapter). A release with neither is ErrNotJudged.
func Load(root, reportsDir string, versions []string) ([]Release, error) {
	var out []Release
	seen := map[string]bool{}
	for _, v := range versions {
		if seen[v] {
			continue
		}
		seen[v] = true
		rel := Release{Version: v, Dir: filepath.ToSlash(filepath.Join(reportsDir, "openclaw-"+v))}
		if b, err := os.ReadFile(filepath.Join(root, rel.Dir, "drivability.json")); err == nil {
			var d openclaw.Drivability
			if err := json.Unmarshal(b, &d); err != nil {
				return nil, fmt.Errorf("%s/drivability.json: %w", rel.Dir, err)
			}
			rel.Drivability = &d
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if rel.Drivability == nil || rel.Drivability.Drivable {
			path := rel.Dir + "/conformance-report.yaml"
			peers, err := sources.LoadPeers(root, []string{"OpenClaw " + v + "=" + path})
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return nil, fmt.Errorf("%w: %s has no conformance-report.yaml and no drivability.json saying it cannot be driven (make openclaw-matrix RELEASES=%s)", ErrNotJudged, rel.Dir, v)
			case err != nil:
				return nil, err
			}
			rel.Report = &peers[0]
		}
		out = append(out, rel)
	}
	slices.SortStableFunc(out, func(a, b Release) int { return CompareVersions(a.Version, b.Version) })
	return out, nil
}

// CompareVersions orders OpenClaw versions (2026.5.28 < 2026.6.35 <
// 2026.10.1) by their numeric parts; a pre-release suffix ("-beta.1", "-1")
// sorts after its release's plain number parts compare equal by string.
func CompareVersions(a, b string) int {
	pa, pb := strings.FieldsFunc(a, sep), strings.FieldsFunc(b, sep)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, ea := strconv.Atoi(pa[i])
		nb, eb := strconv.Atoi(pb[i])
		switch {
		case ea == nil && eb == nil && na != nb:
			return na - nb
		case (ea != nil || eb != nil) && pa[i] != pb[i]:
			return strings.Compare(pa[i], pb[i])
		}
	}
	return len(pa) - len(pb)
}

func sep(r rune) bool { return r == '.' || r == '-' }

// Change marks a cell whose verdict differs from the previous judged
// release's (the nearest older column with a report).
type Change string

const (
	Same     Change = ""
	Fixed    Change = "↑" // now pass, before not
	Regress  Change = "↓" // before pass, now not
	Differs  Change = "Δ" // another change between verdicts (fail → blocked by CM-X, …)
	Coverage Change = "○" // judged in one release, skipped or not drivable in the other
)

// Cell is one release's verdict for one requirement.
type Cell struct {
	// Text is the verdict as CONFORMANCE.md's peer columns give it
	// (sources.Peer.Verdict): pass, fail, fail (baselined), blocked by CM-X,
	// not drivable, skip, error, —; "n/a (not in vN)" when the release's
	// profile does not define the requirement's feature; "" for a release
	// the adapters cannot drive.
	Text string `json:"verdict"`
	// Change against Was, the previous judged release's cell ("" when
	// unchanged or not comparable).
	Change Change `json:"change,omitempty"`
	Was    string `json:"was,omitempty"`
}

// Row is one requirement across the releases.
type Row struct {
	ID      string `json:"id"`
	Area    string `json:"area"`
	Level   string `json:"level"`
	Feature string `json:"feature"`
	Cells   []Cell `json:"cells"`
}

// Matrix is requirement × release.
type Matrix struct {
	Releases []Release `json:"releases"`
	Rows     []Row     `json:"rows"`
	// Unknown lists requirement ids a report holds that the catalogue
	// (reqs) does not, per release ("2026.7.35: CM-X-01").
	Unknown []string `json:"unknown,omitempty"`
}

// Build joins the releases (oldest first, as Load returns them) with the
// requirements reqs (spec.Requirements(): rows in catalogue order). Each
// cell's Change compares its class (class) with the previous judged
// release's: ↑ Fixed, ↓ Regress, Δ Differs between verdicts, ○ Coverage
// when one side was skipped (skip, not drivable); cells with nothing to
// compare (—, n/a, a release not drivable) are never marked and never
// compared against.
func Build(releases []Release, reqs []spec.Requirement) Matrix {
	m := Matrix{Releases: releases}
	known := map[string]bool{}
	for _, r := range reqs {
		known[r.ID] = true
		row := Row{ID: r.ID, Area: r.Area, Level: r.Level, Feature: r.Feature}
		prev := -1
		for i, rel := range releases {
			c := Cell{}
			if rel.Judged() {
				c.Text = cellText(*rel.Report, r)
				if prev >= 0 {
					was := row.Cells[prev].Text
					if ch := change(class(was), class(c.Text)); ch != Same {
						c.Change, c.Was = ch, was
					}
				}
				prev = i
			}
			row.Cells = append(row.Cells, c)
		}
		m.Rows = append(m.Rows, row)
	}
	for _, rel := range releases {
		if !rel.Judged() {
			continue
		}
		for _, l := range rel.Report.Report.Requirements {
			if !known[l.ID] {
				m.Unknown = append(m.Unknown, rel.Version+": "+l.ID)
			}
		}
	}
	return m
}

func cellText(p sources.Peer, r spec.Requirement) string {
	if prof, err := spec.LookupProfile(p.Report.Profile.Name); err == nil && (!prof.Has(r.Feature) || !r.AppliesTo(prof.Name)) {
		return "n/a (not in " + prof.Name + ")"
	}
	return p.Verdict(r.ID)
}

// unjudged is class's answer for a skipped requirement (not drivable, or a
// feature not declared): run, but not judged.
const unjudged = "unjudged"

// class is what Build compares: the verdict without the baseline's
// bookkeeping (fail (baselined) is fail, xpass is pass); unjudged for skip
// and not drivable; "" where there is nothing to compare (—, n/a).
func class(cell string) string {
	switch {
	case cell == "" || cell == "—" || strings.HasPrefix(cell, "n/a"):
		return ""
	case cell == string(report.Skip) || cell == "not drivable":
		return unjudged
	case cell == "fail (baselined)":
		return string(report.Fail)
	case cell == string(report.XPass):
		return string(report.Pass)
	}
	return cell
}

func change(was, now string) Change {
	switch {
	case was == "" || now == "" || was == now:
		return Same
	case was == unjudged || now == unjudged:
		return Coverage
	case now == string(report.Pass):
		return Fixed
	case was == string(report.Pass):
		return Regress
	}
	return Differs
}

// Changes counts the marked cells of release column i.
func (m Matrix) Changes(i int) map[Change]int {
	n := map[Change]int{}
	for _, r := range m.Rows {
		if c := r.Cells[i].Change; c != Same {
			n[c]++
		}
	}
	return n
}

// MarshalJSON adds the judged release's profile, overall verdict, totals and
// report path to matrix.json.
func (r Release) MarshalJSON() ([]byte, error) {
	type plain Release
	out := struct {
		plain
		Profile string         `json:"profile,omitempty"`
		Overall report.Overall `json:"overall,omitempty"`
		Totals  *report.Totals `json:"totals,omitempty"`
		Report  string         `json:"report,omitempty"`
	}{plain: plain(r)}
	if r.Judged() {
		out.Profile, out.Overall, out.Totals, out.Report = r.Profile(), r.Report.Report.Overall, &r.Report.Report.Totals, r.Report.Path
	}
	return json.Marshal(out)
}
