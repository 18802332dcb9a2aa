// Command codemode-conformance runs the code mode conformance suites against a
// target and writes reports.
//
//	codemode-conformance run --target builtin --results-dir results
//	codemode-conformance run --target "exec:./bin/codemode-reference serve --stdio" --req CM-EXEC-08
//	codemode-conformance run --target fake:no-output-limit --expected-failures known.yaml
//
// --results-dir receives conformance-report.yaml (report.Conformance: the
// implementation, harness version, features and their source, a verdict per
// requirement, totals and the overall verdict), summary.md, junit.xml (one
// testcase per spec, named with its requirement ID) and Ginkgo's report.json.
//
// --expected-failures FILE is a baseline (report.Baseline): a listed failure
// is an xfail, a listed spec or requirement that passes is an xpass (stale,
// fails the run), an unlisted failure fails. A spec during which the target
// crashed or the harness faulted is an error, never a failure.
//
// Exit status: 0 when the overall verdict is success or partial, 1 on
// failure (a fail, xpass or error), 2 on a usage error or a bad baseline.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/codemode-conformance/codemode/spec"
	_ "github.com/codemode-conformance/codemode/suites/e2e"
	"github.com/codemode-conformance/codemode/suites/framework"
	_ "github.com/codemode-conformance/codemode/suites/limits"
	_ "github.com/codemode-conformance/codemode/suites/security"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
)

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func usage() {
	fmt.Fprintf(os.Stderr, `usage: codemode-conformance run [flags]

Runs the code mode conformance suites (e2e, limits, security) against a target
and prints a verdict per requirement area.

Targets:
  builtin                 the reference runtime, in process (default)
  exec:<command line>     spawn a process speaking the driver protocol on stdio
  tcp:<host:port>         connect to a process speaking the driver protocol
  fake:<variant>          a deliberately broken reference variant: %s

Flags:
`, strings.Join(variantNames(), ", "))
}

type fakeT struct{ failed bool }

func (t *fakeT) Fail() { t.failed = true }

func main() {
	if len(os.Args) < 2 || os.Args[1] != "run" {
		usage()
		runFlags().PrintDefaults()
		os.Exit(2)
	}
	fs := runFlags()
	fs.Parse(os.Args[2:])
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "unexpected argument %q (flags go after run; see run --help)\n", fs.Arg(0))
		os.Exit(2)
	}
	os.Exit(run(fs))
}

var (
	target, resultsDir, labelFilter, features, exempt, expectedFailures string
	reqs                                                                multi
	verbose                                                             bool
)

func runFlags() *flag.FlagSet {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	fs.Usage = func() { usage(); fs.PrintDefaults() }
	def := os.Getenv(framework.TargetEnv)
	if def == "" {
		def = "builtin"
	}
	fs.StringVar(&target, "target", def, "target to test (also $"+framework.TargetEnv+")")
	fs.StringVar(&resultsDir, "results-dir", "results", "directory for conformance-report.yaml, summary.md, junit.xml and report.json")
	fs.StringVar(&labelFilter, "label-filter", "", "Ginkgo label filter, e.g. 'area:EXEC && !feature:yield'")
	fs.Var(&reqs, "req", "run only the specs of this requirement ID (repeatable)")
	fs.StringVar(&features, "features", "", "comma-separated features to use instead of the target's declared ones")
	fs.StringVar(&exempt, "exempt-features", "", "comma-separated features to remove from the declared ones")
	fs.StringVar(&expectedFailures, "expected-failures", "", "YAML baseline of known failures: requirements: [IDs], specs: [names] (listed failures are xfail, listed passes xpass)")
	fs.BoolVar(&verbose, "v", false, "verbose Ginkgo output")
	return fs
}

func split(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func run(fs *flag.FlagSet) int {
	cfg := framework.Config{Target: target, ExemptFeatures: split(exempt)}
	if features != "" {
		cfg.Features = append([]string{}, split(features)...)
	}
	if err := checkTarget(target); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	for _, id := range reqs {
		if _, ok := spec.Lookup(id); !ok {
			fmt.Fprintf(os.Stderr, "unknown requirement id %q\n", id)
			return 2
		}
	}
	var baseline *report.Baseline
	if expectedFailures != "" {
		var err error
		if baseline, err = report.LoadBaseline(expectedFailures); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	if err := os.MkdirAll(resultsDir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	framework.Configure(cfg)
	gomega.RegisterFailHandler(ginkgo.Fail)
	framework.Define()

	var n atomic.Int64
	ginkgo.ReportAfterEach(func(r types.SpecReport) {
		if !report.Selected(r) {
			return
		}
		v := baseline.Verdict(report.Spec(r))
		fmt.Printf("[%3d] %-5s %s (%s)\n", n.Add(1), strings.ToUpper(string(v.Verdict)), r.LeafNodeText, r.RunTime.Round(time.Millisecond))
		switch v.Verdict {
		case report.Pass:
			if v.Expected != "" {
				fmt.Printf("        passed, but %s is listed in %s: an xpass unless another of its specs fails\n", v.Requirement, expectedFailures)
			}
		case report.Skip:
			fmt.Printf("        skipped: %s\n", r.Failure.Message)
		case report.XPass:
			fmt.Printf("        passed, but listed in %s (%s): remove the stale entry\n", expectedFailures, v.Expected)
		default:
			if v.Verdict == report.XFail {
				fmt.Printf("        expected failure (%s):\n", v.Expected)
			}
			if v.HarnessError != "" {
				fmt.Printf("        harness error, not a failure of %s: %s\n", v.Requirement, v.HarnessError)
			}
			msg := r.Failure.Message
			if len(msg) > 600 {
				msg = msg[:600] + "…"
			}
			fmt.Printf("        %s\n        at %s (full transcript in report.json)\n", strings.ReplaceAll(msg, "\n", "\n        "), r.Failure.Location)
		}
	})
	var overall report.Overall
	ginkgo.ReportAfterSuite("conformance summary", func(r types.Report) {
		overall = writeReports(r, baseline)
	})

	sc, rc := ginkgo.GinkgoConfiguration()
	sc.LabelFilter = labelFilter
	if len(reqs) > 0 {
		var parts []string
		for _, id := range reqs {
			parts = append(parts, "req:"+id)
		}
		f := strings.Join(parts, " || ")
		if sc.LabelFilter != "" {
			f = "(" + sc.LabelFilter + ") && (" + f + ")"
		}
		sc.LabelFilter = f
	}
	sc.RandomizeAllSpecs = false
	sc.RandomSeed = 1 // the same order on every run and every target
	rc.JSONReport = filepath.Join(resultsDir, "report.json")
	rc.Succinct = !verbose
	rc.SilenceSkips = true
	rc.Verbose = verbose
	rc.NoColor = os.Getenv("NO_COLOR") != "" || os.Getenv("CI") != ""
	fmt.Fprintf(os.Stderr, "codemode-conformance %s: target %s, results in %s\n", framework.HarnessVersion, target, resultsDir)
	ginkgo.RunSpecs(&fakeT{}, "codemode conformance", sc, rc)
	if n.Load() == 0 && overall != "" {
		fmt.Fprintln(os.Stderr, "no spec ran: either none matched the filters (a requirement listed as not covered in CONFORMANCE.md has no spec yet) or the suite failed before the specs")
	}
	if overall == report.Success || overall == report.Partial {
		return 0
	}
	return 1
}

// writeReports evaluates the run, prints the summary and writes
// conformance-report.yaml, summary.md and junit.xml. It returns the overall
// verdict.
func writeReports(r types.Report, baseline *report.Baseline) report.Overall {
	ev := report.Evaluate(report.Specs(r), baseline)
	c := report.NewConformance(ev, report.SuiteErrors(r), baseline)
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
	if c.ExpectedFailures != nil {
		c.ExpectedFailures.File = expectedFailures
	}

	md := report.Markdown(target, strings.TrimSpace(name+" "+version), report.Summarize(ev.Requirements))
	md += fmt.Sprintf("\nOverall: **%s**\n", c.Overall)
	for _, reason := range c.Reasons {
		md += "- " + reason + "\n"
	}
	fmt.Println()
	fmt.Print(md)
	t := c.Totals
	fmt.Printf("\nrequirements: %d pass, %d fail, %d error, %d xfail, %d xpass, %d skip\n", t.Pass, t.Fail, t.Error, t.XFail, t.XPass, t.Skip)
	if c.ExpectedFailures != nil && len(c.ExpectedFailures.Unused) > 0 {
		fmt.Printf("expected failures that matched no spec of this run: %s\n", strings.Join(c.ExpectedFailures.Unused, "; "))
	}
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
	return c.Overall
}

// effectiveFeatures lists the run's feature set, core first, then sorted.
func effectiveFeatures() []string {
	out := []string{"core"}
	var rest []string
	for f, on := range framework.Features() {
		if on && f != "core" {
			rest = append(rest, f)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}
