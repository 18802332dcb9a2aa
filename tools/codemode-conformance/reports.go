package main

import (
	"fmt"
	"github.com/codemode-conformance/codemode/conformance"
	"os"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/onsi/ginkgo/v2/types"
)

// outcome is what writeReports concluded, for the closing line.
type outcome struct {
	overall   report.Overall
	specs     map[report.Verdict]int // spec verdicts
	skipped   int                    // requirements whose every spec was skipped
	skipWhy   string                 // their causes, counted (report.Conformance.SkipCounts)
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
		notes = append(notes, "no spec matched "+what)
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
		notes = append(notes, fmt.Sprintf("nothing tested: all %d selected %s skipped", ran, plural(ran, "spec was", "specs were")))
	default:
		// A requirement whose specs were all skipped (a feature the target
		// does not declare) got a verdict but was not tested.
		notes = append(notes, fmt.Sprintf("%d of %d requirements with specs ran", o.selection.Requirements.Ran-o.skipped, o.selection.Requirements.WithSpecs))
		if o.skipped > 0 {
			why := ""
			if o.skipWhy != "" {
				why = " (" + o.skipWhy + ")"
			}
			notes = append(notes, fmt.Sprintf("%d %s skipped%s", o.skipped, plural(o.skipped, "requirement was", "requirements were"), why))
		}
		if k := o.specs[report.XFail]; k > 0 {
			notes = append(notes, fmt.Sprintf("%d expected %s (xfail)", k, plural(k, "failure", "failures")))
		}
		if k := o.specs[report.XPass]; k > 0 {
			notes = append(notes, fmt.Sprintf("%d stale expected %s (xpass)", k, plural(k, "failure", "failures")))
		}
	}
	return fmt.Sprintf("codemode-conformance: overall %s (exit %d) — %s\n", o.overall, code, strings.Join(notes, "; "))
}

// writeReports evaluates the run with its facts (and how it was cut
// short: --fail-fast, a signal) and writes its reports to --results-dir
// (renderReports).
func writeReports(r types.Report, run conformance.Run, con *console, xpassShown map[string]bool) outcome {
	f := run.Facts()
	f.FailFast = failFast
	if s := signaled(); s != nil {
		f.Interrupted = sigName(s)
	}
	o := f.Evaluate(r, run.Baseline, expectedFailures)
	return renderReports(o, con, xpassShown, resultsDir, expectedFailures, (*conformance.Outcome).Write)
}

// renderReports applies the run control of o.Facts (runControl), prints the
// XPASS lines of listed requirements not in xpassShown
// (requirementXPassLines; baselineFile names the baseline) and the summary,
// and writes conformance-report.yaml, summary.md, junit.xml, report.html,
// report.json and run-metadata.json into dir with write. run and rejudge
// both render through it.
func renderReports(o conformance.Outcome, con *console, xpassShown map[string]bool, dir, baselineFile string, write func(*conformance.Outcome, string, string) error) outcome {
	runControl(&o.Conformance, o.Facts)
	md, text := o.Summary()
	con.Print(requirementXPassLines(o.Conformance.Requirements, xpassShown, baselineFile))
	con.Summary(text)
	if err := write(&o, dir, md); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	out := outcome{overall: o.Conformance.Overall, specs: map[report.Verdict]int{}, selection: o.Conformance.Selection, skipWhy: o.Conformance.SkipCounts()}
	for _, s := range o.Evaluation.Specs {
		out.specs[s.Verdict]++
	}
	for _, r := range o.Conformance.Requirements {
		if r.Verdict == report.Skip {
			out.skipped++
		}
	}
	return out
}
