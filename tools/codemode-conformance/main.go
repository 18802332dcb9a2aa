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
// testcase per spec, named with its requirement ID), report.html (the
// summary, then each spec that fails the run with its requirement, failure
// message, guest code and transcript) and Ginkgo's report.json.
//
// --expected-failures FILE is a baseline (report.Baseline): a listed failure
// is an xfail, a listed spec or requirement that passes is an xpass (stale,
// fails the run), an unlisted failure fails. A spec during which the target
// crashed or the harness faulted is an error, never a failure.
//
// The overall verdict judges the selected specs only: conformance-report.yaml
// records the selection (--req, --label-filter) and how much of the
// catalogue ran. Ginkgo's own closing line counts specs by Ginkgo state (an
// xfail as failed, an xpass as passed); the line printed after it is the
// harness's verdict.
//
// Exit status: 0 when the overall verdict is success or partial, 1 on
// failure (a fail, xpass or error, or no spec ran), 2 on a usage error (bad
// flags, an unknown target or requirement, a malformed --label-filter) or a
// bad baseline. `codemode-conformance help` (or -h, --help) prints usage.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
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
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
)

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// usage prints the help text and the run flags to w.
func usage(w io.Writer) {
	fmt.Fprintf(w, `usage: codemode-conformance run [flags]
       codemode-conformance help

Runs the code mode conformance suites (e2e, limits, security) against a target,
prints a line per spec and a verdict per requirement area, and writes
conformance-report.yaml, summary.md, junit.xml, report.html and report.json
to --results-dir.

Targets:
  builtin                 the reference runtime, in process (default)
  exec:<command line>     spawn a process speaking the driver protocol on stdio
  tcp:<host:port>         connect to a process speaking the driver protocol
  fake:<variant>          a deliberately broken reference variant: %s

Exit status: 0 overall success or partial, 1 failure (a fail, error or xpass,
or no spec ran), 2 usage error or malformed --expected-failures file. The
overall verdict judges the selected specs only (see selection: in
conformance-report.yaml).

Flags:
`, strings.Join(variantNames(), ", "))
	fs := runFlags()
	fs.SetOutput(w)
	fs.PrintDefaults()
}

type fakeT struct{ failed bool }

func (t *fakeT) Fail() { t.failed = true }

func main() { os.Exit(cli(os.Args[1:])) }

// cli runs the command line and returns the exit status.
func cli(args []string) int {
	if len(args) == 0 {
		usage(os.Stderr)
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		usage(os.Stdout)
		return 0
	case "run":
	default:
		fmt.Fprintf(os.Stderr, "unknown command %q (want run or help)\n\n", args[0])
		usage(os.Stderr)
		return 2
	}
	fs := runFlags()
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(os.Stdout)
			return 0
		}
		fmt.Fprintln(os.Stderr, "see codemode-conformance run --help")
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "unexpected argument %q (flags go after run; see run --help)\n", fs.Arg(0))
		return 2
	}
	return run()
}

var (
	target, resultsDir, labelFilter, features, exempt, expectedFailures string
	reqs                                                                multi
	verbose                                                             bool
)

// runFlags defines the run flags; it prints parse errors (not usage) to
// stderr and leaves -h to the caller.
func runFlags() *flag.FlagSet {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {}
	def := os.Getenv(framework.TargetEnv)
	if def == "" {
		def = "builtin"
	}
	fs.StringVar(&target, "target", def, "target to test (also $"+framework.TargetEnv+")")
	fs.StringVar(&resultsDir, "results-dir", "results", "directory for conformance-report.yaml, summary.md, junit.xml, report.html and report.json")
	fs.StringVar(&labelFilter, "label-filter", "", "Ginkgo label filter, e.g. 'area:EXEC && !feature:yield' (labels: req:<ID>, area:<AREA>, feature:<name>, level:must|should, suite:e2e|limits|security)")
	fs.Var(&reqs, "req", "run only the specs of this requirement `ID` (repeatable)")
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

// knownFeatures is every feature a requirement names, plus the
// fault-injection test hook, sorted.
func knownFeatures() []string {
	set := map[string]bool{"fault-injection": true}
	for _, r := range spec.Requirements() {
		set[r.Feature] = true
	}
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// warnUnknownFeatures warns on stderr about names in --features or
// --exempt-features that no spec is gated on (a typo would otherwise
// silently skip or run specs).
func warnUnknownFeatures() {
	known := knownFeatures()
	for _, f := range []struct{ flag, list string }{{"--features", features}, {"--exempt-features", exempt}} {
		var unknown []string
		for _, name := range split(f.list) {
			if i := sort.SearchStrings(known, name); i == len(known) || known[i] != name {
				unknown = append(unknown, fmt.Sprintf("%q", name))
			}
		}
		if len(unknown) > 0 {
			fmt.Fprintf(os.Stderr, "warning: %s: unknown %s %s (no spec is gated on %s); known features: %s\n",
				f.flag, plural(len(unknown), "feature", "features"), strings.Join(unknown, ", "), plural(len(unknown), "it", "them"), strings.Join(known, ", "))
		}
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// checkLabelFilter parses --label-filter as Ginkgo will, and explains a
// syntax error in one line plus a caret under the offending character.
func checkLabelFilter(f string) error {
	_, err := types.ParseLabelFilter(f)
	if err == nil {
		return nil
	}
	var ge types.GinkgoError
	if !errors.As(err, &ge) {
		return fmt.Errorf("invalid --label-filter %q: %v", f, err)
	}
	// The message is the filter, with formatter tags around the offending
	// character, a newline and the reason.
	const mark = "{{red}}{{bold}}{{underline}}"
	msg := ge.Message
	caret := -1
	if i := strings.Index(msg, mark); i >= 0 {
		caret = len([]rune(msg[:i]))
	}
	reason := msg
	if i := strings.LastIndex(msg, "\n"); i >= 0 {
		reason = msg[i+1:]
	}
	out := fmt.Sprintf("invalid --label-filter %q: %s", f, strings.TrimSuffix(strings.TrimSpace(reason), "."))
	if caret >= 0 {
		out += "\n  " + f + "\n  " + strings.Repeat(" ", caret) + "^"
	}
	return errors.New(out + "\n(see https://onsi.github.io/ginkgo/#spec-labels; labels: req:<ID>, area:<AREA>, feature:<name>, level:must|should, suite:<name>)")
}

// selectionFilter is the label filter the run hands to Ginkgo: --label-filter
// and the --req IDs.
func selectionFilter() string {
	f := labelFilter
	if len(reqs) > 0 {
		var parts []string
		for _, id := range reqs {
			parts = append(parts, "req:"+id)
		}
		f = strings.Join(parts, " || ")
		if labelFilter != "" {
			f = "(" + labelFilter + ") && (" + f + ")"
		}
	}
	return f
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// outcome is what writeReports concluded, for the closing line.
type outcome struct {
	overall   report.Overall
	specs     map[report.Verdict]int // spec verdicts
	selection report.Selection
}

func run() int {
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
	if err := checkLabelFilter(labelFilter); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	filter, err := types.ParseLabelFilter(selectionFilter())
	if err != nil {
		fmt.Fprintf(os.Stderr, "internal error: the combined label filter %q: %v\n", selectionFilter(), err)
		return 2
	}
	warnUnknownFeatures()
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
	// The build's specs, walked without running them (before our report
	// nodes exist): the selection counts need every spec, and a failed
	// BeforeSuite leaves the deselected and the unreached ones out of the
	// run's report.
	built := report.Inventory(ginkgo.PreviewSpecs("codemode conformance"), filter)

	// Ginkgo's reporter and our lines share stdout through con, so that
	// every line of ours starts on its own line; in succinct mode our
	// progress lines replace Ginkgo's per-spec dots.
	con := &console{w: os.Stdout, bol: true, dropDenoters: !verbose}
	formatter.ColorableStdOut = con

	var n atomic.Int64
	ginkgo.ReportAfterEach(func(r types.SpecReport) {
		if !report.Selected(r) {
			return
		}
		v := baseline.Verdict(report.Spec(r))
		var b strings.Builder
		fmt.Fprintf(&b, "[%3d] %-5s %s (%s)\n", n.Add(1), strings.ToUpper(string(v.Verdict)), r.LeafNodeText, r.RunTime.Round(time.Millisecond))
		switch v.Verdict {
		case report.Pass:
			if v.Expected != "" {
				fmt.Fprintf(&b, "        passed, but %s is listed in %s: an xpass unless another of its specs fails\n", v.Requirement, expectedFailures)
			}
		case report.Skip:
			fmt.Fprintf(&b, "        skipped: %s\n", r.Failure.Message)
		case report.XPass:
			fmt.Fprintf(&b, "        passed, but listed in %s (%s): remove the stale entry\n", expectedFailures, v.Expected)
		default:
			if v.Verdict == report.XFail {
				fmt.Fprintf(&b, "        expected failure (%s):\n", v.Expected)
			}
			if v.HarnessError != "" {
				fmt.Fprintf(&b, "        harness error, not a failure of %s: %s\n", v.Requirement, v.HarnessError)
			}
			msg := r.Failure.Message
			if len(msg) > 600 {
				msg = msg[:600] + "…"
			}
			fmt.Fprintf(&b, "        %s\n        at %s (full transcript in report.html)\n", strings.ReplaceAll(msg, "\n", "\n        "), r.Failure.Location)
		}
		con.Print(b.String())
	})
	var out outcome
	ginkgo.ReportAfterSuite("conformance summary", func(r types.Report) {
		out = writeReports(r, baseline, built, con)
	})

	sc, rc := ginkgo.GinkgoConfiguration()
	sc.LabelFilter = selectionFilter()
	sc.RandomizeAllSpecs = false
	sc.RandomSeed = 1 // the same order on every run and every target
	rc.JSONReport = filepath.Join(resultsDir, "report.json")
	rc.Succinct = !verbose
	rc.SilenceSkips = true
	rc.Verbose = verbose
	rc.NoColor = os.Getenv("NO_COLOR") != "" || os.Getenv("CI") != "" || !isTerminal(os.Stdout)
	fmt.Fprintf(os.Stderr, "codemode-conformance %s: target %s, results in %s\n", framework.HarnessVersion, target, resultsDir)
	ginkgo.RunSpecs(&fakeT{}, "codemode conformance", sc, rc)
	code := 1
	if out.overall == report.Success || out.overall == report.Partial {
		code = 0
	}
	con.Print(closingLine(out, code))
	return code
}

// closingLine is printed after Ginkgo's own closing banner, which counts
// specs by Ginkgo state: it gives the harness's verdict and says where the
// two disagree.
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
	if c.ExpectedFailures != nil {
		c.ExpectedFailures.File = expectedFailures
	}

	md := report.Markdown(target, c.ImplementationLine(), report.Summarize(ev.Requirements))
	md += "\n" + c.Selection.Describe() + "\n"
	if line := c.Selection.NotRunLine(); line != "" {
		md += "\n" + line + "\n"
	}
	md += fmt.Sprintf("\nOverall: **%s**\n", c.Overall)
	for _, reason := range c.Reasons {
		md += "- " + reason + "\n"
	}
	t := c.Totals
	text := "\n" + md + fmt.Sprintf("\nrequirements: %d pass, %d fail, %d error, %d xfail, %d xpass, %d skip\n", t.Pass, t.Fail, t.Error, t.XFail, t.XPass, t.Skip)
	if c.ExpectedFailures != nil && len(c.ExpectedFailures.Unused) > 0 {
		text += fmt.Sprintf("expected failures that matched no spec of this run: %s\n", strings.Join(c.ExpectedFailures.Unused, "; "))
	}
	con.Print(text)
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
