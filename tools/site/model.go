// Package site builds the static comparison site (issue 29 item 3): plain
// HTML and CSS, no JavaScript, no external asset, generated only from what
// CONFORMANCE.md is generated from (tools/sources: the reference's runs per
// profile and the committed conformance-report.yaml of each other
// implementation), the committed expected-failures baselines (their class,
// reason and note are the triage rows), the differential ledger
// (reports/diff/diff.json) and the hostile corpus (suites/security/cases,
// the guest code of a case spec). Every string taken from a report is
// escaped by html/template: a target's strings are hostile.
//
// Layout of the output folder:
//
//	index.html                  requirements × columns, by area and level
//	<slug>/index.html           one column: profile, features, counts, triage rows
//	<slug>/<AREA>.html#<ID>     the evidence of one requirement in that column
//	ledger.html                 the differential ledger
//	badges/<slug>.json          a shields.io endpoint badge per column
//	style.css
package site

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/codemode-conformance/codemode/suites/security/corpus"
	"github.com/codemode-conformance/codemode/tools/diff"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/codemode-conformance/codemode/tools/sources"
	"github.com/onsi/ginkgo/v2/types"
)

// ReferenceRun names a run of every suite against the reference under one
// profile: Dir holds its report.json (the verdicts, read as CONFORMANCE.md
// reads them) and, when present, its conformance-report.yaml (identity and
// features).
type ReferenceRun struct {
	Profile string
	Dir     string
}

// Options say where the sources are. Paths are relative to Root (the top of
// a checkout) unless absolute.
type Options struct {
	Root string
	// Reference: the reference's runs, one per profile; none leaves the
	// reference's columns out.
	Reference []ReferenceRun
	// Peers are "Title=path/to/conformance-report.yaml" entries
	// (default sources.DefaultPeers).
	Peers []string
	// Ledger is the differential ledger (default reports/diff/diff.json);
	// "-" leaves the ledger page out.
	Ledger string
	// Cases is the hostile corpus folder (default diff.DefaultCells).
	Cases string
}

// Site is everything the pages show.
type Site struct {
	Areas   []AreaGroup
	Columns []*Column
	Ledger  *diff.Ledger
	// LedgerPath is where Ledger was read from (relative to Root).
	LedgerPath string
	// Cases maps a corpus file name to its guest code.
	Cases map[string]corpus.Case
	// CasesDir is where the cases were read from (relative to Root).
	CasesDir string
	// Catalogue is spec.Version().
	Catalogue int
}

// AreaGroup is one area's requirements, MUST first, then SHOULD, each in
// catalogue order.
type AreaGroup struct {
	Code, Title string
	Levels      []LevelGroup
}

// LevelGroup is the requirements of one level in one area.
type LevelGroup struct {
	Level        string
	Requirements []spec.Requirement
}

// Column is one implementation (or release, or profile of the reference)
// judged by one run.
type Column struct {
	Slug  string // folder and badge name, e.g. "openclaw-2026.9.6", "reference-v1"
	Title string // e.g. "OpenClaw 2026.9.6 (v2)"
	// Source is the file the verdicts were read from (relative to Root).
	Source         string
	Implementation string // name and version as the run recorded it
	Target         string
	Profile        string
	ProfileLine    string
	Overall        report.Overall
	Reasons        []string
	Totals         report.Totals
	Declared       []string
	Effective      []string
	Missing        []string // required features the run lacked
	NotDrivable    []string // required features declared not drivable
	Cells          map[string]Cell
	// Baseline is the expected-failures file whose rows are Triage.
	Baseline string
	Triage   []TriageRow
}

// Cell is one requirement in one column.
type Cell struct {
	Verdict report.Verdict
	// Label is the text of the index cell (the CONFORMANCE.md wording:
	// "fail (baselined)", "not drivable", "blocked by CM-X", "n/a (not in v2)").
	Label string
	// Expected is the baseline's reason for an expected failure.
	Expected string
	Specs    []Evidence
}

// Evidence is one spec's verdict in a column.
type Evidence struct {
	Name    string
	Verdict report.Verdict
	Message string
	// Case is the corpus case a case spec ran ("case <file>.js: …"), with its
	// guest code; nil for other specs.
	Case *corpus.Case
	// GuestCode is the code of the exec a failing spec judged, from the
	// run's typed evidence (evidence.Failure) where the report keeps it
	// (a reference run's report.json; committed reports do not).
	GuestCode string
}

// TriageRow is one expected-failures entry: a requirement or a spec, its
// class (deviation, decision, untriaged), reason and note.
type TriageRow struct {
	Requirement string
	Spec        string // empty for a requirement entry
	Class       string
	Reason      string
	Note        string
	Flaky       bool
}

// caseName finds the corpus file a case spec names ("CM-LIM-01 case
// dos-bigint-explosion.js: …").
var caseName = regexp.MustCompile(`\bcase ([A-Za-z0-9._-]+\.js):`)

// Load reads every source. It fails on a source that cannot be read; a
// reference run without a conformance-report.yaml is judged from its
// report.json alone.
func Load(o Options) (*Site, error) {
	if o.Root == "" {
		o.Root = "."
	}
	if o.Peers == nil {
		o.Peers = sources.DefaultPeers
	}
	if o.Ledger == "" {
		o.Ledger = "reports/diff/diff.json"
	}
	if o.Cases == "" {
		o.Cases = diff.DefaultCells
	}
	s := &Site{Catalogue: spec.Version(), Cases: map[string]corpus.Case{}, CasesDir: o.Cases}
	s.Areas = groups(spec.Requirements())
	cases, err := corpus.Load(os.DirFS(join(o.Root, o.Cases)), ".")
	if err != nil {
		return nil, fmt.Errorf("cases: %w", err)
	}
	for _, c := range cases {
		s.Cases[c.File] = c
	}
	for _, r := range o.Reference {
		col, err := s.referenceColumn(o.Root, r)
		if err != nil {
			return nil, err
		}
		s.Columns = append(s.Columns, col)
	}
	peers, err := sources.LoadPeers(o.Root, o.Peers)
	if err != nil {
		return nil, err
	}
	for _, p := range peers {
		col, err := s.peerColumn(o.Root, p)
		if err != nil {
			return nil, err
		}
		s.Columns = append(s.Columns, col)
	}
	if o.Ledger != "-" {
		if s.Ledger, err = diff.LoadLedger(join(o.Root, o.Ledger)); err != nil {
			return nil, err
		}
		s.LedgerPath = o.Ledger
	}
	return s, nil
}

func join(root, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}

// groups sorts the catalogue into areas (spec.Areas order) and levels.
func groups(reqs []spec.Requirement) []AreaGroup {
	var out []AreaGroup
	for _, a := range spec.Areas() {
		g := AreaGroup{Code: a.Code, Title: a.Title}
		for _, level := range []string{spec.LevelMust, spec.LevelShould} {
			lg := LevelGroup{Level: level}
			for _, r := range reqs {
				if r.Area == a.Code && r.Level == level {
					lg.Requirements = append(lg.Requirements, r)
				}
			}
			if len(lg.Requirements) > 0 {
				g.Levels = append(g.Levels, lg)
			}
		}
		if len(g.Levels) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// evidence wraps a spec's verdict, with its case's guest code when it names one.
func (s *Site) evidence(name string, v report.Verdict, msg string) Evidence {
	e := Evidence{Name: name, Verdict: v, Message: msg}
	if m := caseName.FindStringSubmatch(name); m != nil {
		if c, ok := s.Cases[m[1]]; ok {
			e.Case = &c
		}
	}
	return e
}

// referenceColumn judges a reference run's report.json as CONFORMANCE.md does.
func (s *Site) referenceColumn(root string, r ReferenceRun) (*Column, error) {
	specsPath := filepath.Join(r.Dir, "report.json")
	rep, err := sources.ReadReport(join(root, specsPath))
	if err != nil {
		return nil, fmt.Errorf("reference run %s: %w", r.Profile, err)
	}
	specs := report.Specs(rep)
	guest := failureCode(rep)
	ev := report.Evaluate(specs, nil)
	ev.Profile = r.Profile
	col := &Column{Slug: "reference-" + r.Profile, Title: "reference " + r.Profile, Source: specsPath, Profile: r.Profile,
		Cells: map[string]Cell{}, Implementation: "codemode-reference", Target: "builtin", Totals: report.Count(ev.Requirements)}
	col.Overall, col.Reasons = report.JudgeIn(r.Profile, ev.Requirements, nil, false)
	if c, err := sources.LoadConformance(join(root, filepath.Join(r.Dir, "conformance-report.yaml"))); err == nil {
		col.fromReport(c)
	} else if !os.IsNotExist(err) {
		return nil, fmt.Errorf("reference run %s: %w", r.Profile, err)
	} else {
		col.ProfileLine = report.NewProfile(r.Profile, "", "").Line()
	}
	for _, req := range spec.Requirements() {
		v, ok := ev.Requirements[req.ID]
		if !ok {
			continue
		}
		cell := Cell{Verdict: v, Label: sources.ReferenceVerdict(r.Profile, req, v, ev.BlockedBy[req.ID])}
		for _, sv := range ev.Specs {
			if sv.Requirement == req.ID {
				e := s.evidence(sv.Text, sv.Verdict, sv.Message)
				e.GuestCode = guest[sv.Text]
				cell.Specs = append(cell.Specs, e)
			}
		}
		col.Cells[req.ID] = cell
	}
	return col, nil
}

// fromReport takes a conformance report's identity, verdict and features.
func (c *Column) fromReport(r report.Conformance) {
	c.Implementation = strings.TrimSpace(r.Implementation.Name + " " + r.Implementation.Version)
	c.Target = r.Target
	if r.Profile.Name != "" {
		c.Profile = r.Profile.Name
	}
	c.ProfileLine = r.Profile.Line()
	c.Overall, c.Reasons, c.Totals = r.Overall, r.Reasons, r.Totals
	c.Declared, c.Effective = r.Features.Declared, r.Features.Effective
	if req := r.Features.Required; req != nil {
		c.Missing, c.NotDrivable = req.Missing, req.NotDrivable
	}
}

// peerColumn renders a committed report and its baseline's triage rows.
func (s *Site) peerColumn(root string, p sources.Peer) (*Column, error) {
	col := &Column{Slug: filepath.Base(filepath.Dir(p.Path)), Title: p.Title, Source: p.Path, Cells: map[string]Cell{}}
	col.fromReport(p.Report)
	for _, line := range p.Report.Requirements {
		cell := Cell{Verdict: line.Verdict, Label: p.Verdict(line.ID), Expected: line.Expected}
		for _, sl := range line.Specs {
			cell.Specs = append(cell.Specs, s.evidence(sl.Name, sl.Verdict, sl.Message))
		}
		col.Cells[line.ID] = cell
	}
	if ef := p.Report.ExpectedFailures; ef != nil && ef.File != "" {
		b, err := report.LoadBaseline(join(root, ef.File))
		if err != nil {
			return nil, fmt.Errorf("%s: baseline: %w", p.Title, err)
		}
		col.Baseline = ef.File
		for _, e := range b.Requirements {
			col.Triage = append(col.Triage, TriageRow{Requirement: e.ID, Class: string(e.Class), Reason: e.Reason, Note: e.Note})
		}
		for _, e := range b.Specs {
			id, _, _ := strings.Cut(e.Name, " ")
			col.Triage = append(col.Triage, TriageRow{Requirement: id, Spec: e.Name, Class: string(e.Class), Reason: e.Reason, Note: e.Note, Flaky: e.Flaky})
		}
		sort.SliceStable(col.Triage, func(i, j int) bool { return col.Triage[i].Requirement < col.Triage[j].Requirement })
	}
	return col, nil
}

// EvidenceHref is the path, relative to the site's top, of requirement id's
// evidence in column c.
func (c *Column) EvidenceHref(id string) string {
	r, _ := spec.Lookup(id)
	return c.Slug + "/" + r.Area + ".html#" + id
}

// Cell is requirement id's cell in c, nil when the run has no verdict for it.
func (c *Column) Cell(id string) *Cell {
	if x, ok := c.Cells[id]; ok {
		return &x
	}
	return nil
}

// failureCode maps each failing spec's text to the guest code of its typed
// failure evidence (evidence.FailureEntry), where it has one.
func failureCode(r types.Report) map[string]string {
	out := map[string]string{}
	for _, sr := range r.SpecReports {
		for _, e := range sr.ReportEntries {
			var f evidence.Failure
			if e.Name == evidence.FailureEntry && evidence.Decode(e.Value, &f) == nil && f.GuestCode != "" {
				out[sr.LeafNodeText] = f.GuestCode
			}
		}
	}
	return out
}
