package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// Outcome is an evaluated run: Ginkgo's report, the verdict of every spec
// and the conformance report (conformance-report.yaml).
type Outcome struct {
	Report      types.Report
	Evaluation  report.Evaluation
	Conformance report.Conformance
	// Budget is each report's budget of target-controlled bytes
	// (report.Budget; 0: report.DefaultReportBudget), Config.ReportBudget.
	Budget int
}

// Evaluate judges a finished run (the report Ginkgo hands ReportAfterSuite).
// Every string that can carry what the target sent is cleaned first
// (report.SanitiseReport, report.Clean), so no report written from the
// Outcome carries a raw one.
func (run Run) Evaluate(r types.Report) Outcome {
	c := run.Config
	r = report.SanitiseReport(r)
	ev := report.Evaluate(report.Specs(r), run.Baseline)
	ev.Profile = framework.Profile()
	conf := report.NewConformance(ev, report.SuiteErrors(r), run.Baseline)
	name, version, declared := framework.Implementation()
	conf.Implementation = report.Peer{Name: report.Clean(name), Version: report.Clean(version)}
	declared = slices.Clone(declared) // the framework's own copy stays as the target sent it
	for i, f := range declared {
		declared[i] = report.Clean(f)
	}
	conf.Harness = report.Peer{Name: framework.HarnessName, Version: framework.HarnessVersion}
	conf.Target = c.Target
	conf.Features = report.Features{
		Effective: EffectiveFeatures(),
		Source:    framework.FeatureSource,
		Declared:  declared,
		Requested: c.Features,
		Exempt:    c.ExemptFeatures,
	}
	conf.Profile = report.NewProfile(framework.Profile(), report.Clean(framework.DeclaredProfile()), c.Profile)
	conf.ApplyRequired(RequiredFeatures())
	conf.Selection = report.NewSelection(run.Built, ev, c.Requirements, c.LabelFilter)
	if conf.ExpectedFailures != nil {
		conf.ExpectedFailures.File = c.ExpectedFailures
	}
	return Outcome{Report: r, Evaluation: ev, Conformance: conf, Budget: c.ReportBudget}
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
// report.html and report.json (Ginkgo's JSON report, of the cleaned report)
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
	write("report.json", append(js, '\n'), err)
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
