package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/codemode-conformance/codemode/conformance"
	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/targets"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/onsi/ginkgo/v2/types"
)

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// usage prints the help text and the run flags to w.
func usage(w io.Writer) {
	fmt.Fprintf(w, `usage: codemode-conformance run [flags]
       codemode-conformance bench --target A --target B … [flags]   (side-by-side timings; bench -h)
       codemode-conformance case FILE [--target T] [--profile P]   (one hostile-case corpus file; case -h)
       codemode-conformance diff --target A --target B … [flags]   (the same cells on each target, differences triaged; diff -h)
       codemode-conformance bench-load [flags]   (the reference's load and capacity; bench-load -h)
       codemode-conformance list fakes   (every fake:<variant> target, the requirement it breaks and how; list -h)
       codemode-conformance smoke --target T   (a protocol check in seconds; smoke -h)
       codemode-conformance init --lang node|python|go DIR   (a skeleton adapter, baseline and CI workflow; init -h)
       codemode-conformance baseline --from RESULTS_DIR [--update FILE]   (expected failures from a run; baseline -h)
       codemode-conformance rejudge --from RESULTS_DIR --expected-failures FILE [--results-dir OUT]   (a run's reports judged again against another baseline, no target contacted; rejudge -h)
       codemode-conformance version
       codemode-conformance help

Runs the code mode conformance suites (abuse, codemode, e2e, limits, mcp, namespaces, security) against a target,
prints a line per spec and a verdict per requirement area, and writes
conformance-report.yaml, summary.md, junit.xml, report.html, report.json and
run-metadata.json (what rejudge needs besides report.json) to --results-dir.

Targets:
%s
Exit status: 0 overall success or partial, 1 failure (a fail, error or xpass,
or nothing tested: no spec ran or every selected spec was skipped), 2 usage
error (including an unknown name in --features, --exempt-features or
--profile) or a malformed --expected-failures file. The overall verdict
judges the selected specs only (see selection: in conformance-report.yaml).

Required features: each profile requires some features (spec/protocol.md §9,
"required by"). A spec whose feature the profile requires and the target does
not declare still runs and is judged on behaviour; for a feature the harness
drives only through a surface of its own (agent.turn, run.trajectory,
run.prepare sandbox, hooks, ...; requirements.yaml driver:), the lowest
requirement id fails as "not implemented or not drivable" and the others are
blocked by it. One whose feature is only allowed skips. --features replaces the declaration, so a
required feature left out of it fails the same way; --exempt-features of a
required feature skips its specs instead, and the console, summary.md and
report.html say "required feature exempted by the user" at the top (the run is
then at best partial).

Flags:
`, targets.Usage())
	fs := runFlags()
	fs.SetOutput(w)
	fs.PrintDefaults()
}

var (
	target, resultsDir, labelFilter, features, exempt, expectedFailures, profile string
	reqs                                                                         multi
	verbose, failFast                                                            bool
	reportBudget                                                                 int
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
	fs.StringVar(&labelFilter, "label-filter", "", "Ginkgo label filter, e.g. 'area:EXEC && !feature:yield' (labels: req:<ID>, area:<AREA>, feature:<name>, level:must|should, suite:abuse|codemode|e2e|limits|mcp|namespaces|security)")
	fs.Var(&reqs, "req", "run only the specs of this requirement `ID` (repeatable)")
	fs.StringVar(&features, "features", "", "comma-separated features to use instead of the target's declared ones (a required feature left out is judged as undeclared)")
	fs.StringVar(&exempt, "exempt-features", "", "comma-separated features to remove from the declared ones (a required feature removed here skips, reported as exempted by the user)")
	fs.StringVar(&profile, "profile", "", "contract profile to judge the target against: "+strings.Join(spec.ProfileNames(), " or ")+" (default: the one the target declares, else "+spec.DefaultProfile+"; builtin serves it; a target declaring another one, or features outside it or excluding each other, is a target error)")
	fs.StringVar(&expectedFailures, "expected-failures", "", "YAML baseline of known failures: requirements: [IDs], specs: [names] (listed failures are xfail, listed passes xpass)")
	fs.IntVar(&reportBudget, "report-budget", report.DefaultReportBudget, "`bytes` of target-controlled strings each report (report.json, junit.xml, report.html, conformance-report.yaml, summary.md) may carry; past it strings are replaced by a marker saying how many bytes were left out, verdicts are kept (docs/reports.md)")
	fs.IntVar(&framework.MaxMessageBytes, "max-message-bytes", framework.MaxMessageBytes, "longest message the harness reads from the target, in `bytes` (without the newline); a longer one is a target fault: that spec is an error and the target is restarted (spec/protocol.md §1)")
	fs.Func("token-file", "`file` holding the session token to send as initialize params.token, for a target listening with a token (codemode-reference serve --listen --allow-remote); also $"+framework.TokenEnv, func(path string) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.TrimSpace(string(b)) == "" {
			return fmt.Errorf("%s holds no token", path)
		}
		return os.Setenv(framework.TokenEnv, strings.TrimSpace(string(b)))
	})
	fs.IntVar(&procs, "procs", 1, "run the specs in `N` processes, each with its own target connection (Serial specs run alone at the end); the verdicts are those of a serial run. --fail-fast and --validate-protocol run serially")
	fs.BoolVar(&failFast, "fail-fast", false, "stop after the first spec that fails or errors (the rest count as not reached)")
	fs.BoolVar(&verbose, "v", false, "verbose Ginkgo output")
	fs.BoolVar(&framework.ValidateProtocol, "validate-protocol", false, "check every message the target sends against spec/schema; the first violation (message and schema path) fails the run (exit 1) and goes to protocol-violation.txt")
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

// checkFeatures rejects names in --features or --exempt-features that are
// not features of spec/requirements.yaml (a typo would otherwise silently
// skip or run specs): the error lists the known features. It also rejects an
// unknown --profile.
func checkFeatures() error {
	known := conformance.KnownFeatures()
	var msgs []string
	for _, f := range []struct{ flag, list string }{{"--features", features}, {"--exempt-features", exempt}} {
		var unknown []string
		for _, name := range split(f.list) {
			if !conformance.IsKnownFeature(known, name) {
				unknown = append(unknown, fmt.Sprintf("%q", name))
			}
		}
		if len(unknown) > 0 {
			msgs = append(msgs, fmt.Sprintf("%s: unknown %s %s", f.flag, plural(len(unknown), "feature", "features"), strings.Join(unknown, ", ")))
		}
	}
	if len(msgs) > 0 {
		msgs[len(msgs)-1] += "; known features: " + strings.Join(known, ", ")
	}
	if profile != "" {
		if _, err := spec.LookupProfile(profile); err != nil {
			msgs = append(msgs, "--profile: "+err.Error())
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return errors.New(strings.Join(msgs, "; "))
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

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
