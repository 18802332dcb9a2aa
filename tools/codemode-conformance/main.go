// Command codemode-conformance runs the code mode conformance suites against a
// target and writes reports.
//
//	codemode-conformance run --target builtin --results-dir results
//	codemode-conformance run --target "exec:./bin/codemode-reference serve --stdio" --req CM-EXEC-08
//	codemode-conformance run --target fake:no-output-limit --expected-failures known.yaml
//	codemode-conformance case suites/security/cases/dos-sync-loop.js --target builtin
//
// --results-dir receives conformance-report.yaml (report.Conformance: the
// implementation, harness version, features and their source, a verdict per
// requirement, totals and the overall verdict), summary.md, junit.xml (one
// testcase per spec, named with its requirement ID), report.html (the
// summary, then each spec that fails the run with its requirement, failure
// message, guest code and transcript) and Ginkgo's report.json.
//
// --expected-failures FILE is a baseline (report.Baseline): a listed failure
// is an xfail, a listed spec or requirement that passes is an xpass (stale,
// fails the run), an unlisted failure fails. `rejudge --from DIR
// --expected-failures FILE` renders a finished run's reports again against
// another baseline from its report.json and run-metadata.json, without
// contacting a target (rejudgecmd.go). A spec during which the target
// crashed or the harness faulted is an error, never a failure.
//
// The overall verdict judges the selected specs only: conformance-report.yaml
// records the selection (--req, --label-filter) and how much of the
// catalogue ran. Ginkgo's own closing line counts specs by Ginkgo state (an
// xfail as failed, an xpass as passed); the line printed after it is the
// harness's verdict.
//
// Exit status: 0 when the overall verdict is success or partial, 1 on
// failure (a fail, xpass or error, or nothing tested: no spec ran or every
// selected spec was skipped), 2 on a usage error (bad flags, an unknown
// target, requirement or feature name, a malformed --label-filter) or a bad
// baseline. `codemode-conformance help` (or -h, --help) prints usage.
//
// Run control: every spec has a deadline (framework.Timeouts.Spec), and a
// target that misses a call's deadline is killed and restarted for the next
// spec, the spec being an error. --fail-fast stops after the first spec that
// fails or errors. SIGINT or SIGTERM kills every target process group at
// once, writes the reports of what ran, and exits 1.
package main

import (
	"context"
	"fmt"
	"github.com/codemode-conformance/codemode/internal/subcmd"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/codemode-conformance/codemode/conformance"
	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/targets"
	_ "github.com/codemode-conformance/codemode/targets/builtin"
	"github.com/codemode-conformance/codemode/tools/bench"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"
)

type fakeT struct{ failed bool }

func (t *fakeT) Fail() { t.failed = true }

func main() { os.Exit(cli(os.Args[1:])) }

// subcommands are the commands cli dispatches (help CMD runs CMD -h).
var subcommands = []string{"run", "smoke", "init", "baseline", "rejudge", "version", "bench", "bench-load", "case", "diff", "list"}

// cli runs the command line and returns the exit status.
func cli(args []string) int {
	if len(args) == 0 {
		usage(os.Stderr)
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		// help CMD is CMD -h, for every subcommand.
		if len(args) > 1 && slices.Contains(subcommands, args[1]) {
			return cli([]string{args[1], "-h"})
		}
		if len(args) > 1 {
			// help FROB is a usage error, as FROB is.
			fmt.Fprintf(os.Stderr, "no help on %q: not a command (want run, smoke, init, baseline, rejudge, version, bench, bench-load, case, diff or list)\n\n", args[1])
			usage(os.Stderr)
			return 2
		}
		usage(os.Stdout)
		return 0
	case "run":
	case "bench":
		return bench.Command(context.Background(), args[1:], os.Stdout, os.Stderr)
	case "case":
		return caseCommand(context.Background(), args[1:], os.Stdout, os.Stderr)
	case "bench-load":
		return bench.LoadCommand(context.Background(), args[1:], os.Stdout, os.Stderr)
	case "diff":
		return diffCommand(context.Background(), args[1:], os.Stdout, os.Stderr) // diffcmd.go
	case "list":
		return listCommand(args[1:], os.Stdout, os.Stderr) // list.go
	case "version", "--version":
		return versionCommand(args[1:], os.Stdout, os.Stderr) // version.go
	case "smoke":
		return smokeCommand(args[1:], os.Stdout, os.Stderr) // smoke.go
	case "init":
		return initCommand(args[1:], os.Stdout, os.Stderr) // initcmd.go
	case "baseline":
		return baselineCommand(args[1:], os.Stdout, os.Stderr) // baselinecmd.go
	case "rejudge":
		return rejudgeCommand(args[1:], os.Stdout, os.Stderr) // rejudgecmd.go
	default:
		fmt.Fprintf(os.Stderr, "unknown command %q (want run, smoke, init, baseline, rejudge, version, bench, bench-load, case, diff, list or help)\n\n", args[0])
		usage(os.Stderr)
		return 2
	}
	fs := runFlags()
	fs.Usage = func() { usage(fs.Output()) }
	if code, done := subcmd.Parse(fs, args[1:], os.Stdout); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "unexpected argument %q (flags go after run; see run --help)\n", fs.Arg(0))
		return 2
	}
	return run()
}

func run() int {
	cfg := conformance.Config{Target: target, ExemptFeatures: split(exempt), ResultsDir: resultsDir,
		ExpectedFailures: expectedFailures, Requirements: reqs, LabelFilter: labelFilter, Profile: profile, ReportBudget: reportBudget}
	if features != "" {
		cfg.Features = append([]string{}, split(features)...)
	}
	if err := targets.Check(target); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	for _, id := range reqs {
		if _, ok := spec.Lookup(id); !ok {
			fmt.Fprintf(os.Stderr, "unknown requirement id %q\n", id)
			return 2
		}
	}
	if err := checkLabelFilter(labelFilter); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := checkFeatures(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if expectedFailures != "" {
		if _, err := report.LoadBaseline(expectedFailures); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	if err := os.MkdirAll(resultsDir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := probeWritable(resultsDir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	// --procs: this process is worker 0 of a pool, or a worker of one
	// (procs.go); the claim hook must be set before Prepare defines the tree.
	w, isWorker := workerFromEnv()
	var workers *pool
	if isWorker {
		framework.SetWorker(w)
	} else if procs > 1 && !failFast && !framework.ValidateProtocol {
		p, err := newPool(procs)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		workers = p
		framework.SetWorker(framework.Worker{Dir: p.dir})
	} else if procs < 1 {
		fmt.Fprintf(os.Stderr, "--procs %d: want 1 or more\n", procs)
		return 2
	}
	// Prepare installs openclaw:<version> before the suites start, with
	// progress, so a first install is not bounded by the initialize timeout.
	run, err := conformance.Prepare(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if isWorker {
		sc, rc := ginkgoConfig()
		return runWorker(w, sc, rc)
	}
	baseline := run.Baseline

	// Ginkgo's reporter and our lines share stdout through con, which
	// keeps it to a progress line per spec (see console).
	con := &console{w: os.Stdout, bol: true, verbose: verbose}
	formatter.ColorableStdOut = con

	var n atomic.Int64
	var banner sync.Once // the required features the target lacks, before the first spec's line
	ginkgo.ReportBeforeEach(func(r types.SpecReport) {
		if report.Selected(r) && workers == nil {
			banner.Do(func() { con.Print(requiredBanner()) })
		}
		con.SpecStarts()
	})
	xpassShown := map[string]bool{} // requirements with an XPASS progress line
	ginkgo.ReportAfterEach(func(r types.SpecReport) {
		line := ""
		if report.Selected(r) && workers == nil { // with --procs, every line once all processes ended
			r = report.SanitiseSpec(r) // what the target sent, escaped and bounded (issue 28 N5)
			v := baseline.Verdict(report.Spec(r))
			if v.Verdict == report.XPass {
				xpassShown[v.Requirement] = true
			}
			line = progressLine(n.Add(1), r, v, expectedFailures)
		}
		con.SpecDone(line)
	})
	var out outcome
	var own types.Report // with --procs: this process's report, merged after RunSpecs
	ginkgo.ReportAfterSuite("conformance summary", func(r types.Report) {
		if workers != nil {
			// Waiting here for the other processes would be interrupted by
			// a signal with the node; the summary's phase drops Ginkgo's
			// closing output (lines and reports follow RunSpecs).
			own = r
			con.Summary("")
			return
		}
		out = writeReports(r, run, con, xpassShown)
	})
	// procsReports merges the --procs processes' reports, prints every
	// spec's line in spec order, and writes the reports.
	procsReports := func() {
		r := workers.finish(own)
		for _, s := range r.SpecReports {
			if !report.Selected(s) {
				continue
			}
			banner.Do(func() { con.Print(requiredBanner()) })
			s = report.SanitiseSpec(s)
			v := baseline.Verdict(report.Spec(s))
			if v.Verdict == report.XPass {
				xpassShown[v.Requirement] = true
			}
			con.Print(progressLine(n.Add(1), s, v, expectedFailures))
		}
		out = writeReports(r, run, con, xpassShown)
	}

	sc, rc := ginkgoConfig()
	con.color = !rc.NoColor
	fmt.Fprintf(os.Stderr, "codemode-conformance %s: target %s, results in %s\n", framework.HarnessVersion, target, resultsDir)
	if workers != nil {
		if k := selectedSpecs(run); k < workers.n {
			workers.n = max(k, 1) // no process without a spec to claim
		}
		fmt.Fprintf(os.Stderr, "codemode-conformance: %d processes share the specs (--procs); the lines follow once all of them ended\n", workers.n)
		if err := workers.startParallel(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		onSignal = workers.signal
		onForceExit = func() { workers.signal(os.Kill) }
	}
	stopWatching := watchSignals()
	ginkgo.RunSpecs(&fakeT{}, "codemode conformance", sc, rc)
	if workers != nil {
		procsReports()
	}
	stopWatching()
	code := 1
	if (out.overall == report.Success || out.overall == report.Partial) && signaled() == nil {
		code = 0
	}
	code = protocolVerdict(code, con) // validate.go
	con.Verdict(closingLine(out, code), out.overall)
	return code
}

// ginkgoConfig is the Ginkgo configuration of a run (and of each of its
// --procs workers): the selection, a fixed order, succinct output.
func ginkgoConfig() (types.SuiteConfig, types.ReporterConfig) {
	sc, rc := ginkgo.GinkgoConfiguration()
	sc.LabelFilter = conformance.Config{LabelFilter: labelFilter, Requirements: reqs}.Filter()
	sc.FailFast = failFast
	sc.RandomizeAllSpecs = false
	sc.RandomSeed = 1 // the same order on every run and every target
	rc.Succinct = !verbose
	rc.SilenceSkips = true
	rc.Verbose = verbose
	rc.NoColor = os.Getenv("NO_COLOR") != "" || os.Getenv("CI") != "" || !isTerminal(os.Stdout)
	return sc, rc
}

// selectedSpecs counts the specs the run's filters select.
func selectedSpecs(run conformance.Run) int {
	k := 0
	for _, b := range run.Built {
		if b.Selected {
			k++
		}
	}
	return k
}

// closingLine is printed after Ginkgo's own closing banner, which counts
// specs by Ginkgo state: it gives the harness's verdict and says where the
// two disagree.

// probeWritable checks that the results directory takes a file before the
// run starts, so that a read-only one is a usage error (exit 2) at once, not
// found after the whole run (issue 28 N10).
func probeWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".codemode-conformance-probe-*")
	if err != nil {
		return fmt.Errorf("--results-dir %s is not writable: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
