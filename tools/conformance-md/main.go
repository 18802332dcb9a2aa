// Command conformance-md writes CONFORMANCE.md: every requirement of
// spec/requirements.yaml (named by its catalogue version) with its level,
// feature, basis, source, the specs that cover it (file:line) and a verdict
// column per profile against the reference, joined from the report.json of a
// conformance run per profile (--report is profile v1's run,
// --profile-report adds another profile's).
//
//	conformance-md --report results/report.json --profile-report v2=results-v2/report.json --out CONFORMANCE.md
//	conformance-md --report results/report.json --out CONFORMANCE.md --check
//
// --check writes nothing and exits 1 when the file is stale.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/codemode-conformance/codemode/tools/sources"
)

func main() {
	in := flag.String("report", "results/report.json", "Ginkgo JSON report of a run against the reference (builtin) under profile "+spec.DefaultProfile)
	var profileFlags []string
	flag.Func("profile-report", `"profile=report.json": a verdict column from a run against the reference under another profile (repeatable), e.g. v2=results-v2/report.json`, func(v string) error {
		profileFlags = append(profileFlags, v)
		return nil
	})
	out := flag.String("out", "CONFORMANCE.md", "file to write")
	check := flag.Bool("check", false, "exit 1 if --out differs from what would be written; write nothing")
	var peerFlags []string
	flag.Func("peer", `"Column title=conformance-report.yaml": a column of verdicts from another implementation's committed report (repeatable; default: `+strings.Join(DefaultPeers, ", ")+`)`, func(v string) error {
		peerFlags = append(peerFlags, v)
		return nil
	})
	flag.Parse()
	if peerFlags == nil {
		peerFlags = DefaultPeers
	}
	peers, err := LoadPeers(".", peerFlags)
	if err != nil {
		fail(err)
	}
	runs := []ProfileRun{{Profile: spec.DefaultProfile}}
	if runs[0].Specs, err = readSpecs(*in); err != nil {
		fail(err)
	}
	for _, f := range profileFlags {
		name, path, ok := strings.Cut(f, "=")
		if !ok || name == "" || path == "" {
			fail(fmt.Errorf("--profile-report %q: want \"profile=path/to/report.json\"", f))
		}
		if _, err := spec.LookupProfile(name); err != nil {
			fail(fmt.Errorf("--profile-report: %w", err))
		}
		r := ProfileRun{Profile: name}
		if r.Specs, err = readSpecs(path); err != nil {
			fail(err)
		}
		runs = append(runs, r)
	}
	md, err := Render(runs, peers...)
	if err != nil {
		fail(err)
	}
	if *check {
		old, _ := os.ReadFile(*out)
		if !bytes.Equal(old, md) {
			fmt.Fprintf(os.Stderr, "%s is stale: run `make conformance-md` and commit it\n", *out)
			os.Exit(1)
		}
		return
	}
	if err := os.WriteFile(*out, md, 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "conformance-md:", err)
	os.Exit(1)
}

// Render builds CONFORMANCE.md from the specs of a full run per profile
// (runs[0] decides coverage; every run must hold the same specs) joined with
// spec.Requirements(). A requirement whose feature a run's profile does not
// define shows "n/a (not in <profile>)" in that column. It fails on a spec without a requirement label, on an
// unknown requirement, on two specs with the same text, on a MUST requirement
// that has no spec and neither an excluded: nor a planned: entry, and on a
// requirement marked planned: that already has a spec (stale marker).
func Render(runs []ProfileRun, peers ...Peer) ([]byte, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("no run")
	}
	for _, r := range runs[1:] {
		if a, b := specTexts(runs[0].Specs), specTexts(r.Specs); a != b {
			return nil, fmt.Errorf("the %s and %s runs hold different specs (both must run every suite of one build)", runs[0].Profile, r.Profile)
		}
	}
	return render(runs, spec.Requirements(), peers...)
}

func specTexts(specs []report.SpecResult) string {
	var t []string
	for _, s := range specs {
		t = append(t, s.Text)
	}
	sort.Strings(t)
	return strings.Join(t, "\n")
}

func render(runs []ProfileRun, reqs []spec.Requirement, peers ...Peer) ([]byte, error) {
	specs := runs[0].Specs
	known := map[string]bool{}
	for _, r := range reqs {
		known[r.ID] = true
	}
	byReq := map[string][]report.SpecResult{}
	seen := map[string]string{}
	for _, s := range specs {
		if s.Requirement == "" {
			return nil, fmt.Errorf("spec %q (%s) carries no req: label", s.Text, s.Location)
		}
		if !known[s.Requirement] {
			return nil, fmt.Errorf("spec %q (%s) names unknown requirement %s", s.Text, s.Location, s.Requirement)
		}
		if prev, dup := seen[s.Text]; dup {
			return nil, fmt.Errorf("two specs share the name %q (%s and %s)", s.Text, prev, s.Location)
		}
		seen[s.Text] = s.Location
		byReq[s.Requirement] = append(byReq[s.Requirement], s)
	}
	var problems []string
	for _, r := range reqs {
		switch {
		case len(byReq[r.ID]) > 0 && r.Planned != "":
			problems = append(problems, fmt.Sprintf("%s has a spec but is still marked planned: %q (remove the marker from spec/requirements.yaml)", r.ID, r.Planned))
		case len(byReq[r.ID]) == 0 && r.Level == spec.LevelMust && r.Excluded == "" && r.Planned == "":
			problems = append(problems, fmt.Sprintf("MUST requirement %s has no spec and no excluded: reason (or planned: note) in spec/requirements.yaml", r.ID))
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("coverage: %s", strings.Join(problems, "; "))
	}
	verdicts := make([]map[string]report.Verdict, len(runs))
	blockedBy := make([]map[string][]string, len(runs))
	for i, r := range runs {
		ev := report.Evaluate(r.Specs, nil)
		verdicts[i], blockedBy[i] = ev.Requirements, ev.BlockedBy
	}
	var b strings.Builder
	b.WriteString("# Conformance coverage\n\n")
	b.WriteString("Generated by `make conformance-md` from `spec/requirements.yaml` and a run of every suite against the\nreference (`builtin`) per profile. Do not edit by hand; `make test` fails when this file is stale.\n\n")
	for _, r := range runs {
		if p, err := spec.LookupProfile(r.Profile); err == nil {
			fmt.Fprintf(&b, "Column **%s** is the reference judged against profile `%s` (generation %d, page %s, OpenClaw %s); \"n/a\": the requirement's feature is not part of that profile.\n\n", verdictTitle(r.Profile), p.Name, p.Generation, p.Source, p.OpenClaw)
		}
	}
	fmt.Fprintf(&b, "Requirement catalogue **version %d** (`spec/requirements.yaml`; what each version changed: `spec/CHANGES.md`). Column *basis* says what a requirement rests on: `seed` (a statement of source page 000 or 001, section in *source*), `openclaw-source` (a fact from OpenClaw's code or tests), `hardening` (field reports and hostile cases).\n\n", spec.Version())
	for _, p := range peers {
		fmt.Fprintf(&b, "Column **%s** is rendered from the committed `%s` (%s %s%s, overall %s; not rerun by `make test`). \"not drivable\": its adapter cannot drive what the spec needs; \"fail (baselined)\": a known failure listed in that run's expected-failures baseline, triaged next to the report.\n\n", p.Title, p.Path, p.Report.Implementation.Name, p.Report.Implementation.Version, p.ProfileNote(), p.Report.Overall)
	}
	var covered, excluded, uncovered, mustUncovered int
	for _, r := range reqs {
		switch {
		case len(byReq[r.ID]) > 0:
			covered++
		case r.Excluded != "":
			excluded++
		default:
			uncovered++
			if r.Level == "MUST" {
				mustUncovered++
			}
		}
	}
	fmt.Fprintf(&b, "**%d requirements: %d covered, %d excluded, %d not yet covered (%d of them MUST, each with a planned: note).**\n\n", len(reqs), covered, excluded, uncovered, mustUncovered)
	b.WriteString("\"blocked by CM-X\": a precondition owned by requirement CM-X failed, so the requirement was not judged (neither pass nor fail; the fault is CM-X's). Requirements per verdict, by column:\n\n")
	for i, r := range runs {
		fmt.Fprintf(&b, "- %s: %s\n", verdictTitle(r.Profile), countLine(report.Count(verdicts[i])))
	}
	for _, p := range peers {
		fmt.Fprintf(&b, "- %s: %s\n", p.Title, countLine(p.Report.Totals))
	}
	b.WriteString("\n")
	if line := basisCounts(reqs, byReq); line != "" {
		fmt.Fprintf(&b, "By basis (a requirement resting on two counts under both): %s.\n\n", line)
	}
	areas := map[string]string{}
	for _, a := range spec.Areas() {
		areas[a.Code] = a.Title
	}
	area := ""
	for _, r := range reqs {
		if r.Area != area {
			area = r.Area
			head, rule := "", ""
			for _, r := range runs[1:] {
				head += " " + verdictTitle(r.Profile) + " |"
				rule += "---|"
			}
			for _, p := range peers {
				head += " " + p.Title + " |"
				rule += "---|"
			}
			fmt.Fprintf(&b, "\n## %s — %s\n\n| ID | level | feature | basis | source | %s |%s specs |\n|---|---|---|---|---|---|%s---|\n", r.Area, areas[r.Area], verdictTitle(runs[0].Profile), head, rule)
		}
		specsCell := "—"
		cells := make([]string, len(runs))
		for i, run := range runs {
			cells[i] = sources.ReferenceVerdict(run.Profile, r, verdicts[i][r.ID], blockedBy[i][r.ID])
		}
		verdict := ""
		if list := byReq[r.ID]; len(list) > 0 {
			sort.Slice(list, func(i, j int) bool { return list[i].Location < list[j].Location })
			var locs []string
			for _, s := range list {
				locs = append(locs, "`"+relative(s.Location)+"`")
			}
			specsCell = strings.Join(locs, "<br>")
		} else if r.Excluded != "" {
			verdict = "excluded: " + r.Excluded
		} else if r.Planned != "" {
			verdict = "not covered (planned: " + r.Planned + ")"
		} else {
			verdict = "not covered"
		}
		if verdict != "" {
			// No spec: the note once, in the first column.
			for i := range cells {
				cells[i] = "—"
			}
			cells[0] = verdict
		}
		peerCells := ""
		for _, c := range cells[1:] {
			peerCells += " " + c + " |"
		}
		for _, p := range peers {
			peerCells += " " + p.Verdict(r.ID) + " |"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |%s %s |\n", r.ID, r.Level, r.Feature, strings.Join(r.Basis, " + "), r.Source, cells[0], peerCells, specsCell)
	}
	return []byte(b.String()), nil
}

// countLine is a column's requirements per verdict, e.g. "160 pass, 0 fail,
// 0 error, 0 xfail, 0 xpass, 1 blocked, 6 skip".
func countLine(t report.Totals) string {
	return fmt.Sprintf("%d pass, %d fail, %d error, %d xfail, %d xpass, %d blocked, %d skip", t.Pass, t.Fail, t.Error, t.XFail, t.XPass, t.Blocked, t.Skip)
}

// verdictTitle is the column title of a profile's verdicts.
func verdictTitle(profile string) string { return "verdict " + profile }

// basisCounts is, per basis in spec.Bases order, how many requirements rest
// on it and how many of those are covered, e.g. "seed 140 (60 covered),
// hardening 5 (5 covered)"; empty when no requirement names a basis.
func basisCounts(reqs []spec.Requirement, byReq map[string][]report.SpecResult) string {
	var parts []string
	for _, basis := range spec.Bases {
		n, covered := 0, 0
		for _, r := range reqs {
			if r.HasBasis(basis) {
				n++
				if len(byReq[r.ID]) > 0 {
					covered++
				}
			}
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d (%d covered)", basis, n, covered))
		}
	}
	return strings.Join(parts, ", ")
}

// relative turns an absolute spec location into a module-relative one.
func relative(loc string) string {
	dir := filepath.Dir(loc)
	for d := dir; d != "/" && d != "."; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			if rel, err := filepath.Rel(d, loc); err == nil {
				return filepath.ToSlash(rel)
			}
		}
	}
	return loc
}
