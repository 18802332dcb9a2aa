package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/codemode-conformance/codemode/conformance"
	"github.com/codemode-conformance/codemode/internal/subcmd"
	"github.com/codemode-conformance/codemode/tools/report"
)

// rejudgeCommand renders every report of a finished run again against
// another expected-failures baseline, without contacting any target:
//
//	codemode-conformance rejudge --from RESULTS_DIR --expected-failures FILE [--results-dir OUT]
//
// It reads RESULTS_DIR's report.json (Ginkgo's report of the run, as run
// wrote it) and run-metadata.json (conformance.Facts: target, profile,
// selection, declared and effective features, required features, how the
// run was cut short), judges them with conformance.Facts.Evaluate (the
// code path of run) against FILE, prints the summary and the closing line
// as run does, and writes conformance-report.yaml, summary.md, junit.xml,
// report.html, report.json and run-metadata.json to OUT (default
// RESULTS_DIR), each file replaced atomically once all were written
// (conformance.Outcome.WriteAtomic).
//
// Exit status, as run's for the new overall verdict: 0 success or partial,
// 1 failure (a fail, error or xpass, a baseline error such as an entry for a
// skipped or blocked spec, a run that was interrupted, or a report that
// cannot be written). 2: usage, a malformed baseline (as run), or a
// RESULTS_DIR rejudge cannot use: no report.json (conformance.ErrNoReportJSON),
// no run-metadata.json (conformance.ErrNoRunMetadata: a run from a harness
// that did not record it) or either unreadable, from another requirements
// catalogue, holding what no run writes (a string with escapes or line
// breaks, an unknown feature: an edited file) or the two of different runs
// (conformance.ErrBadResults).
func rejudgeCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rejudge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "the --results-dir of a finished run (its report.json and run-metadata.json)")
	baselineFile := fs.String("expected-failures", "", "the YAML baseline to judge the run against (as run --expected-failures)")
	out := fs.String("results-dir", "", "where to write the reports (default: the --from directory, each file replaced atomically)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: codemode-conformance rejudge --from RESULTS_DIR --expected-failures FILE [--results-dir OUT]

Renders every report of a finished run (conformance-report.yaml, summary.md,
junit.xml, report.html, report.json, run-metadata.json) again from its saved
results, judged against FILE, without contacting any target: after
baseline --update, the reports say what a new run with the new baseline
would say of the same results. The profile, selection, declared features and
notDrivable reasons are those the run recorded (run-metadata.json).
Exit status: as run's for the new overall verdict (0 success or partial,
1 failure); 2 usage, a malformed baseline, or a RESULTS_DIR without
report.json or run-metadata.json (a run by an older harness: run again),
or whose two files do not parse, are not as a run of this harness writes
them, or are of two different runs.

Flags:`)
		fs.PrintDefaults()
	}
	if code, done := subcmd.Parse(fs, args, stdout); done {
		return code
	}
	if *from == "" || *baselineFile == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "rejudge takes --from RESULTS_DIR, --expected-failures FILE and no arguments (see rejudge -h)")
		return 2
	}
	dst := *out
	if dst == "" {
		dst = *from
	}
	b, err := report.LoadBaseline(*baselineFile)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	r, err := conformance.LoadReport(*from)
	if err != nil {
		fmt.Fprintln(stderr, "rejudge:", err)
		return 2
	}
	facts, err := conformance.LoadFacts(*from)
	if err != nil {
		fmt.Fprintln(stderr, "rejudge:", err)
		return 2
	}
	if err := facts.Matches(r); err != nil {
		fmt.Fprintln(stderr, "rejudge:", err)
		return 2
	}
	fmt.Fprintf(stderr, "codemode-conformance rejudge: the run of %s in %s against %s, reports in %s\n", report.Clean(facts.Target), *from, *baselineFile, dst)
	con := &console{w: stdout, bol: true}
	o := facts.Evaluate(r, b, *baselineFile)
	res := renderReports(o, con, map[string]bool{}, dst, *baselineFile, (*conformance.Outcome).WriteAtomic)
	code := 1
	if res.overall == report.Success || res.overall == report.Partial {
		code = 0
	}
	con.Verdict(closingLine(res, code), res.overall)
	return code
}
