package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/onsi/ginkgo/v2/types"
)

// outcome is what writeReports concluded, for the closing line.
type outcome struct {
	overall   report.Overall
	specs     map[report.Verdict]int // spec verdicts
	selection report.Selection
}

func closingLine(o outcome, code int) string {
	if o.overall == "" {
		return fmt.Sprintf("codemode-conformance: no verdict: the run stopped before the reports were written (exit %d)\n", code)
	}
	var notes []string
	ran := o.selection.Specs.Ran
	switch {
	case ran == 0 && o.selection.Specs.Selected == 0:
		what := "the filters"
		if f := o.selection.Filters(); f != "" {
			what = f
		}
		notes = append(notes, "no spec matched "+what+"; Ginkgo's SUCCESS above only means nothing failed")
		for _, id := range o.selection.Req {
			if r, ok := spec.Lookup(id); ok && r.Excluded != "" {
				notes = append(notes, id+" is excluded: "+r.Excluded)
			} else if ok && r.Planned != "" {
				notes = append(notes, id+" has no spec yet (planned: "+r.Planned+")")
			}
		}
	case ran == 0:
		notes = append(notes, "no spec ran: the suite failed before the specs (see the suite error above)")
	case o.specs[report.Skip] == ran:
		notes = append(notes, fmt.Sprintf("nothing tested: all %d selected %s skipped; Ginkgo's SUCCESS above only means nothing failed", ran, plural(ran, "spec was", "specs were")))
	default:
		notes = append(notes, fmt.Sprintf("%d of %d requirements with specs ran", o.selection.Requirements.Ran, o.selection.Requirements.WithSpecs))
		if k := o.specs[report.XFail]; k > 0 {
			notes = append(notes, fmt.Sprintf("Ginkgo's counts above treat the %d xfail %s as failed", k, plural(k, "spec", "specs")))
		}
		if k := o.specs[report.XPass]; k > 0 {
			notes = append(notes, fmt.Sprintf("Ginkgo's counts above treat the %d xpass %s as passed", k, plural(k, "spec (a stale expected failure)", "specs (stale expected failures)")))
		}
	}
	return fmt.Sprintf("codemode-conformance: overall %s (exit %d) — %s\n", o.overall, code, strings.Join(notes, "; "))
}

// writeReports evaluates the run, prints the summary and writes
// conformance-report.yaml, summary.md, junit.xml and report.html.
func writeReports(r types.Report, baseline *report.Baseline, built []report.BuiltSpec, con *console) outcome {
	ev := report.Evaluate(report.Specs(r), baseline)
	suiteErrors := report.SuiteErrors(r)
	c := report.NewConformance(ev, suiteErrors, baseline)
	name, version, declared := framework.Implementation()
	c.Implementation = report.Peer{Name: name, Version: version}
	c.Harness = report.Peer{Name: framework.HarnessName, Version: framework.HarnessVersion}
	c.Target = target
	c.Features = report.Features{
		Effective: effectiveFeatures(),
		Source:    framework.FeatureSource,
		Declared:  declared,
		Requested: split(features),
		Exempt:    split(exempt),
	}
	c.Selection = report.NewSelection(built, ev, reqs, labelFilter)
	runControl(&c)
	if c.ExpectedFailures != nil {
		c.ExpectedFailures.File = expectedFailures
	}

	md := report.Markdown(target, c.ImplementationLine(), report.Summarize(ev.Requirements))
	md += "\n" + c.Selection.Describe() + "\n"
	if line := c.Selection.NotRunLine(); line != "" {
		md += "\n" + line + "\n"
	}
	md += c.SelfReportedMarkdown()
	md += fmt.Sprintf("\nOverall: **%s**\n", c.Overall)
	for _, reason := range c.Reasons {
		md += "- " + reason + "\n"
	}
	t := c.Totals
	nd := ""
	if t.NotDrivable > 0 {
		nd = fmt.Sprintf(" (%d not drivable)", t.NotDrivable)
	}
	text := "\n" + md + fmt.Sprintf("\nrequirements: %d pass, %d fail, %d error, %d xfail, %d xpass, %d skip%s\n", t.Pass, t.Fail, t.Error, t.XFail, t.XPass, t.Skip, nd)
	if c.ExpectedFailures != nil && len(c.ExpectedFailures.Unused) > 0 {
		text += fmt.Sprintf("expected failures that matched no spec of this run: %s\n", strings.Join(c.ExpectedFailures.Unused, "; "))
	}
	con.Summary(text)
	write := func(file string, data []byte, err error) {
		if err == nil {
			err = os.WriteFile(filepath.Join(resultsDir, file), data, 0o644)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "writing %s: %v\n", file, err)
			c.Overall = report.Failure
		}
	}
	write("summary.md", []byte(md), nil)
	y, err := c.YAML()
	write("conformance-report.yaml", y, err)
	if err := report.WriteJUnit(r, ev, filepath.Join(resultsDir, "junit.xml")); err != nil {
		write("junit.xml", nil, err)
	}
	if err := report.WriteHTML(r, ev, c, filepath.Join(resultsDir, "report.html")); err != nil {
		write("report.html", nil, err)
	}
	o := outcome{overall: c.Overall, specs: map[report.Verdict]int{}, selection: c.Selection}
	for _, s := range ev.Specs {
		o.specs[s.Verdict]++
	}
	return o
}

// effectiveFeatures lists the run's feature set, core first, then sorted.
// A name the target declares that is not a feature is ignored (protocol.md
// §9); it stays in the declared list only.
func effectiveFeatures() []string {
	out := []string{"core"}
	var rest []string
	known := knownFeatures()
	for f, on := range framework.Features() {
		if on && f != "core" && isKnownFeature(known, f) {
			rest = append(rest, f)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}
