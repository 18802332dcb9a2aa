package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
)

// Run is what a finished run is judged with: its config, the parsed
// baseline, the build's specs (report.Inventory) and the selection flags.
type Run struct {
	Config   Config
	Baseline *report.Baseline
	Built    []report.BuiltSpec
}

// Outcome is an evaluated run: Ginkgo's report, the verdict of every spec,
// the conformance report (conformance-report.yaml) and the facts it was
// judged with (run-metadata.json).
type Outcome struct {
	Report      types.Report
	Evaluation  report.Evaluation
	Conformance report.Conformance
	Facts       Facts
	// Budget is each report's budget of target-controlled bytes
	// (report.Budget; 0: report.DefaultReportBudget), Config.ReportBudget.
	Budget int
}

// Evaluate judges a finished run (the report Ginkgo hands ReportAfterSuite)
// with the run's own facts and baseline: run.Facts().Evaluate.
func (run Run) Evaluate(r types.Report) Outcome {
	return run.Facts().Evaluate(r, run.Baseline, run.Config.ExpectedFailures)
}

// Passed reports whether the overall verdict is success or partial.
func (o Outcome) Passed() bool {
	return o.Conformance.Overall == report.Success || o.Conformance.Overall == report.Partial
}

// Summary returns summary.md and the text printed at the end of a run
// (summary.md plus the requirement totals).
func (o Outcome) Summary() (md, text string) {
	c := o.Conformance.Budgeted(report.NewBudget(o.Budget)) // summary.md's own budget (issue 28 N8)
	md = report.Markdown(c.Target, c.ImplementationLine(), report.Summarize(o.Evaluation.Requirements))
	if rm := c.RequiredMarkdown(); rm != "" { // at the top, under the title
		md = strings.Replace(md, "\n\n", "\n\n"+rm+"\n", 1)
	}
	if line := c.Profile.Line(); line != "" {
		md += "\nProfile: " + line + "\n"
	}
	md += "\n" + c.Selection.Describe() + "\n"
	if line := c.Selection.NotRunLine(); line != "" {
		md += "\n" + line + "\n"
	}
	if line := c.SkipLine(); line != "" {
		md += "\n" + line + "\n"
	}
	if b := c.Catalogue.BasisLine(); b != "" {
		md += "\nRequirements judged, by basis: " + b + "\n"
	}
	md += c.SelfReportedMarkdown()
	md += c.BlockedMarkdown()
	md += report.SuspectMarkdown(c.SuspectPreconditions)
	md += fmt.Sprintf("\nOverall: **%s**\n", c.Overall)
	for _, reason := range c.Reasons {
		md += "- " + reason + "\n"
	}
	t := c.Totals
	nd := ""
	if t.NotDrivable > 0 {
		nd = fmt.Sprintf(" (%d not drivable)", t.NotDrivable)
	}
	text = "\n" + md + fmt.Sprintf("\nrequirements: %d pass, %d fail, %d error, %d xfail, %d xpass, %d blocked, %d skip%s\n", t.Pass, t.Fail, t.Error, t.XFail, t.XPass, t.Blocked, t.Skip, nd)
	if c.ExpectedFailures != nil && len(c.ExpectedFailures.Unused) > 0 {
		text += fmt.Sprintf("expected failures that matched no spec of this run: %s\n", strings.Join(c.ExpectedFailures.Unused, "; "))
	}
	if f := c.FlakyLine(); f != "" {
		md += "\n" + f + "\n"
		text += f + "\n"
	}
	return md, text
}

// Write writes summary.md (md), conformance-report.yaml, junit.xml,
// report.html, report.json (Ginkgo's JSON report, of the cleaned report)
// and run-metadata.json (o.Facts, what Rejudge needs besides report.json)
// into dir. A file it cannot write makes the overall verdict a
// failure; the error names every such file. Each report has a budget of
// its own (o.Budget) for what the target controls: strings past it are
// replaced by a marker saying how many bytes were left out (report.Budget);
// verdicts, counts and IDs are never cut (issue 28 N8).
func (o *Outcome) Write(dir, md string) error {
	var errs []error
	write := func(file string, data []byte, err error) {
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, file), data, 0o644)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("writing %s: %w", file, err))
			o.Conformance.Overall = report.Failure
		}
	}
	write("summary.md", []byte(md), nil)
	y, err := o.Conformance.Budgeted(report.NewBudget(o.Budget)).YAML()
	write("conformance-report.yaml", y, err)
	props := []reporters.JUnitProperty{{Name: "profile", Value: o.Conformance.Profile.Name}, {Name: "catalogueVersion", Value: fmt.Sprint(o.Conformance.Catalogue.Version)}}
	// junit.xml and report.html carry the evaluation's messages and the
	// report's evidence: both are charged to the one budget of each;
	// junit.xml's to a third (report.JUnitCopies).
	b := report.NewBudget(max(report.BudgetBytes(o.Budget)/report.JUnitCopies, 1))
	ev := report.BudgetEvaluation(o.Evaluation, b)
	if err := report.WriteJUnit(report.BudgetReport(o.Report, b), ev, filepath.Join(dir, "junit.xml"), props...); err != nil {
		write("junit.xml", nil, err)
	}
	b = report.NewBudget(o.Budget)
	c := o.Conformance.Budgeted(b) // the implementation's name before any evidence
	ev = report.BudgetEvaluation(o.Evaluation, b)
	if err := report.WriteHTML(report.BudgetReport(o.Report, b), ev, c, filepath.Join(dir, "report.html")); err != nil {
		write("report.html", nil, err)
	}
	// Written here rather than by Ginkgo (--json-report): from the cleaned
	// report, and a write that fails (a full disk) fails the run.
	js, err := json.MarshalIndent([]types.Report{report.BudgetReport(o.Report, report.NewBudget(o.Budget))}, "", "  ")
	write(ReportJSONFile, append(js, '\n'), err)
	meta, err := json.MarshalIndent(o.Facts, "", "  ")
	write(RunMetadataFile, append(meta, '\n'), err)
	return errors.Join(errs...)
}

// WriteAtomic is Write with every file replaced at once: the reports are
// written into a fresh directory inside dir (created if needed), and only
// when all of them were written is each renamed over its namesake in dir
// (a rename within one file system replaces a file atomically, so a reader
// never sees a truncated report). On an error writing them, or when one of
// their names in dir is a directory, nothing in dir is replaced (a rename
// that fails after that, rarely, leaves the ones before it replaced).
// Other files of dir (target logs, protocol-violation.txt) are left alone.
func (o *Outcome) WriteAtomic(dir, md string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		o.Conformance.Overall = report.Failure
		return err
	}
	stage, err := os.MkdirTemp(dir, ".codemode-conformance-reports-*")
	if err != nil {
		o.Conformance.Overall = report.Failure
		return err
	}
	defer os.RemoveAll(stage)
	if err := o.Write(stage, md); err != nil {
		return err
	}
	entries, err := os.ReadDir(stage)
	if err != nil {
		o.Conformance.Overall = report.Failure
		return err
	}
	// A rename cannot replace a directory: find one before replacing
	// anything, so that no set of reports is left half old, half new.
	for _, e := range entries {
		if st, err := os.Lstat(filepath.Join(dir, e.Name())); err == nil && st.IsDir() {
			o.Conformance.Overall = report.Failure
			return fmt.Errorf("writing %s: %s is a directory (no report in %s was replaced)", e.Name(), filepath.Join(dir, e.Name()), dir)
		}
	}
	var errs []error
	for _, e := range entries {
		if err := os.Rename(filepath.Join(stage, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			errs = append(errs, fmt.Errorf("writing %s: %w", e.Name(), err))
		}
	}
	if len(errs) > 0 {
		o.Conformance.Overall = report.Failure
	}
	return errors.Join(errs...)
}

// KnownFeatures is every feature of spec/requirements.yaml (features:),
// sorted: spec.FeatureNames.
func KnownFeatures() []string { return spec.FeatureNames() }

// IsKnownFeature reports whether name is in known (sorted, as KnownFeatures).
func IsKnownFeature(known []string, name string) bool {
	i := sort.SearchStrings(known, name)
	return i < len(known) && known[i] == name
}

// EffectiveFeatures lists the run's feature set, core first, then sorted.
// (A name the target declares that is not a feature is a target error,
// protocol.md §9; it never reaches the effective set.)
func EffectiveFeatures() []string {
	out := []string{spec.FeatureCore}
	var rest []string
	known := KnownFeatures()
	for f, on := range framework.Features() {
		if on && f != spec.FeatureCore && IsKnownFeature(known, f) {
			rest = append(rest, f)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}
