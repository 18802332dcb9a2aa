// Command codemode-conformance runs the code mode conformance suites against a
// target and writes reports.
//
//	codemode-conformance run --target builtin --results-dir results
//	codemode-conformance run --target "exec:./bin/codemode-reference serve --stdio" --req CM-EXEC-08
//
// Exit status: 0 when every selected spec passed (or was skipped), 1 when any
// failed, 2 on a usage error.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
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
	target, resultsDir, labelFilter, features, exempt string
	reqs                                              multi
	verbose                                           bool
)

func runFlags() *flag.FlagSet {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	fs.Usage = func() { usage(); fs.PrintDefaults() }
	def := os.Getenv(framework.TargetEnv)
	if def == "" {
		def = "builtin"
	}
	fs.StringVar(&target, "target", def, "target to test (also $"+framework.TargetEnv+")")
	fs.StringVar(&resultsDir, "results-dir", "results", "directory for junit.xml, report.json and summary.md")
	fs.StringVar(&labelFilter, "label-filter", "", "Ginkgo label filter, e.g. 'area:EXEC && !feature:yield'")
	fs.Var(&reqs, "req", "run only the specs of this requirement ID (repeatable)")
	fs.StringVar(&features, "features", "", "comma-separated features to use instead of the target's declared ones")
	fs.StringVar(&exempt, "exempt-features", "", "comma-separated features to remove from the declared ones")
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
	if err := os.MkdirAll(resultsDir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	framework.Configure(cfg)
	gomega.RegisterFailHandler(ginkgo.Fail)
	framework.Define()

	var n atomic.Int64
	ginkgo.ReportAfterEach(func(r types.SpecReport) {
		if r.LeafNodeType != types.NodeTypeIt || (r.State == types.SpecStateSkipped && r.Failure.Message == "") {
			return // not selected by the filters
		}
		state := strings.ToUpper(r.State.String())
		fmt.Printf("[%3d] %-7s %s (%s)\n", n.Add(1), state, r.LeafNodeText, r.RunTime.Round(time.Millisecond))
		switch r.State {
		case types.SpecStateSkipped:
			fmt.Printf("        skipped: %s\n", r.Failure.Message)
		case types.SpecStatePassed:
		default:
			msg := r.Failure.Message
			if len(msg) > 600 {
				msg = msg[:600] + "…"
			}
			fmt.Printf("        %s\n        at %s (full transcript in report.json)\n", strings.ReplaceAll(msg, "\n", "\n        "), r.Failure.Location)
		}
	})
	var failing []string
	ginkgo.ReportAfterSuite("conformance summary", func(r types.Report) {
		specs := report.Specs(r)
		verdicts := report.Verdicts(specs)
		name, version, _ := framework.Implementation()
		md := report.Markdown(target, strings.TrimSpace(name+" "+version), report.Summarize(verdicts))
		fmt.Println()
		fmt.Print(md)
		passing := 0
		for _, v := range verdicts {
			if v == report.Pass {
				passing++
			}
		}
		failing = report.Failing(verdicts)
		fmt.Printf("\nrequirements: %d passed, %d failed\n", passing, len(failing))
		if len(failing) > 0 {
			fmt.Printf("failing: %s\n", strings.Join(failing, " "))
		}
		if err := os.WriteFile(filepath.Join(resultsDir, "summary.md"), []byte(md), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "writing summary.md:", err)
		}
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
	rc.JUnitReport = filepath.Join(resultsDir, "junit.xml")
	rc.JSONReport = filepath.Join(resultsDir, "report.json")
	rc.Succinct = !verbose
	rc.SilenceSkips = true
	rc.Verbose = verbose
	rc.NoColor = os.Getenv("NO_COLOR") != "" || os.Getenv("CI") != ""
	t := &fakeT{}
	fmt.Fprintf(os.Stderr, "codemode-conformance %s: target %s, results in %s\n", framework.HarnessVersion, target, resultsDir)
	ok := ginkgo.RunSpecs(t, "codemode conformance", sc, rc)
	if n.Load() == 0 {
		fmt.Fprintln(os.Stderr, "no spec matched the filters (a requirement listed as not covered in CONFORMANCE.md has no spec yet)")
		return 1
	}
	if !ok || t.failed {
		return 1
	}
	return 0
}
