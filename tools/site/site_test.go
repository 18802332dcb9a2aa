package site_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/codemode-conformance/codemode/tools/site"
	"github.com/onsi/ginkgo/v2/types"
)

const hostile = `</pre></td><script>alert('x')</script><img src=x onerror=alert(1)>`

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fixture lays out a checkout with a reference run (report.json, a failing
// spec whose evidence has hostile guest code) and a committed peer report
// and baseline full of hostile strings; the cases are the real corpus.
func fixture(t *testing.T) site.Options {
	root := t.TempDir()
	it := func(id, text string, state types.SpecState, msg string, entries ...types.ReportEntry) types.SpecReport {
		return types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: id + " " + text, LeafNodeLabels: []string{"req:" + id},
			LeafNodeLocation: types.CodeLocation{FileName: "x.go", LineNumber: 1}, State: state, Failure: types.Failure{Message: msg}, ReportEntries: entries}
	}
	r := types.Report{SuiteDescription: "codemode conformance", SpecReports: types.SpecReports{
		it("CM-EXEC-02", "yield", types.SpecStatePassed, ""),
		it("CM-LIM-03", "output beyond maxOutputBytes fails", types.SpecStateFailed, "failed "+hostile,
			types.ReportEntry{Name: evidence.FailureEntry, Value: types.WrapEntryValue(evidence.Failure{Message: "failed", GuestCode: "return " + hostile})}),
	}}
	b, err := json.Marshal([]types.Report{r})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "results", "report.json"), string(b))
	write(t, filepath.Join(root, "reports", "evil", "conformance-report.yaml"), `implementation: {name: "evil`+hostile+`", version: "1"}
target: "exec:`+hostile+`"
profile: {name: v1}
features: {declared: ["core", "`+hostile+`"]}
expectedFailures: {file: reports/evil/expected-failures.yaml}
overall: failure
totals: {pass: 1, xfail: 1}
requirements:
- id: CM-EXEC-02
  verdict: pass
  specs: [{name: "CM-EXEC-02 yield", verdict: pass}]
- id: CM-LIM-01
  verdict: xfail
  expected: "deviation: `+hostile+`"
  specs: [{name: "CM-LIM-01 case dos-bigint-explosion.js: a BigInt", verdict: xfail, message: "`+hostile+`"}]
`)
	write(t, filepath.Join(root, "reports", "evil", "expected-failures.yaml"), `requirements:
- id: CM-LIM-01
  class: deviation
  reason: "deviation: `+hostile+`"
  note: "`+hostile+`"
`)
	cases, err := filepath.Abs(filepath.Join("..", "..", "suites", "security", "cases"))
	if err != nil {
		t.Fatal(err)
	}
	return site.Options{Root: root, Reference: []site.ReferenceRun{{Profile: "v1", Dir: "results"}},
		Peers: []string{"Evil 1=reports/evil/conformance-report.yaml"}, Ledger: "-", Cases: cases}
}

// Every string from a report is HTML-escaped on every page: a target's
// strings are hostile (html/template).
func TestHostileStringsAreEscaped(t *testing.T) {
	s, err := site.Load(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := site.Write(s, out); err != nil {
		t.Fatal(err)
	}
	seen := 0
	err = filepath.Walk(out, func(p string, info os.FileInfo, err error) error {
		if err != nil || !strings.HasSuffix(p, ".html") {
			return err
		}
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), "<script") || strings.Contains(string(b), "<img") {
			t.Errorf("%s holds an unescaped tag from a report", p)
		}
		seen += strings.Count(string(b), "&lt;script&gt;")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 5 {
		t.Errorf("the hostile string shows escaped only %d times: is it rendered at all?", seen)
	}
}

// The reference's column is judged from report.json as CONFORMANCE.md
// judges it, with the failing exec's guest code from the run's evidence; a
// case spec of a committed report shows the case's guest code; the badge is
// in the shields.io endpoint format.
func TestColumns(t *testing.T) {
	s, err := site.Load(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Columns) != 2 || s.Columns[0].Slug != "reference-v1" || s.Columns[1].Slug != "evil" {
		t.Fatalf("columns %v", s.Columns)
	}
	ref := s.Columns[0]
	if c := ref.Cell("CM-LIM-03"); c == nil || c.Verdict != report.Fail || c.Specs[0].GuestCode != "return "+hostile {
		t.Errorf("reference CM-LIM-03 cell %+v: want fail with the evidence's guest code", c)
	}
	if ref.Cell("CM-EXEC-02").Label != "pass" || ref.Cell("CM-TS-01") != nil || ref.Totals.Pass != 1 || ref.Totals.Fail != 1 || ref.Overall != report.Failure {
		t.Errorf("reference column %+v", ref)
	}
	evil := s.Columns[1]
	c := evil.Cell("CM-LIM-01")
	if c == nil || c.Label != "fail (baselined)" || c.Specs[0].Case == nil || c.Specs[0].Case.File != "dos-bigint-explosion.js" || !strings.Contains(c.Specs[0].Case.Code, "2n ** 1000000000n") {
		t.Errorf("peer CM-LIM-01 cell %+v: want an xfail whose spec carries the case's guest code", c)
	}
	if len(evil.Triage) != 1 || evil.Triage[0].Class != "deviation" || evil.Triage[0].Requirement != "CM-LIM-01" {
		t.Errorf("triage rows %+v", evil.Triage)
	}
	if got, want := evil.EvidenceHref("CM-LIM-01"), "evil/LIM.html#CM-LIM-01"; got != want {
		t.Errorf("evidence href %q, want %q", got, want)
	}
	b := site.BadgeOf(evil)
	if b.SchemaVersion != 1 || b.Label != "code mode v1" || b.Message != "1/2 pass, failure" || b.Color != "red" {
		t.Errorf("badge %+v", b)
	}
}
