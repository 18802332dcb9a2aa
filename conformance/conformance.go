// Package conformance runs the code mode conformance suites from an
// implementer's own `go test`, the way csi-test's sanity.Test runs the CSI
// sanity suite: point a Config at your target and call Test.
//
//	import (
//		"testing"
//
//		"github.com/codemode-conformance/codemode/conformance"
//	)
//
//	func TestConformance(t *testing.T) {
//		conformance.Test(t, conformance.Config{
//			Target:     "exec:./bin/my-runtime serve --stdio", // or tcp:127.0.0.1:7070
//			ResultsDir: "conformance-results",                 // conformance-report.yaml, summary.md, junit.xml, report.html, report.json, run-metadata.json
//			// ExpectedFailures: "known-failures.yaml",        // a baseline: listed failures are xfail
//		})
//	}
//
// Test runs every suite (abuse, codemode, e2e, limits, mcp, namespaces, security) once per test binary
// (Ginkgo runs one suite tree per process) and fails t when the overall
// verdict is a failure: a fail, an error (the target crashed or hung), an
// xpass (a stale baseline entry) or nothing tested. Expected failures do
// not fail t. Ginkgo's own flags (-ginkgo.focus, -ginkgo.label-filter,
// -ginkgo.v …) work as in any Ginkgo suite.
//
// The target syntax is package targets': exec:<command line>,
// tcp:<host:port>, openclaw:<version>. The in-process builtin and fake:*
// targets link the reference implementation, so they are only available
// when the test also imports package targets/builtin.
//
// A runnable example against the reference as an exec: target is in
// examples/embed.
package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/spec"
	_ "github.com/codemode-conformance/codemode/suites/abuse" // the suites Test runs
	_ "github.com/codemode-conformance/codemode/suites/codemode"
	_ "github.com/codemode-conformance/codemode/suites/e2e"
	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/codemode-conformance/codemode/suites/framework"
	_ "github.com/codemode-conformance/codemode/suites/limits"
	_ "github.com/codemode-conformance/codemode/suites/mcp"
	_ "github.com/codemode-conformance/codemode/suites/namespaces"
	_ "github.com/codemode-conformance/codemode/suites/security"
	"github.com/codemode-conformance/codemode/targets"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
)

// SuiteName is the Ginkgo suite description of a conformance run.
const SuiteName = "codemode conformance"

// Config says what to test, how to judge it and where the reports go.
type Config struct {
	// Target names the implementation under test in package targets'
	// syntax, e.g. "exec:./bin/my-runtime serve --stdio" or
	// "tcp:127.0.0.1:7070". Required.
	Target string
	// Features, if non-nil, replace the features the target declares in
	// initialize; ExemptFeatures are removed from them. Names must be
	// features of spec/requirements.yaml (features:).
	Features, ExemptFeatures []string
	// Profile is the profile (spec.Profiles: "v1" or "v2") the run judges
	// the target against; "" means the one the target declares in
	// initialize (absent: v1). A target that declares another profile, or
	// features outside it or excluding each other, is a target error. The
	// builtin target serves it. Every report names it.
	Profile string
	// ResultsDir, if set, receives conformance-report.yaml, summary.md,
	// junit.xml, report.html, Ginkgo's report.json and run-metadata.json
	// (Facts; codemode-conformance rejudge judges the run again from the
	// last two) (created if needed).
	ResultsDir string
	// ExpectedFailures is the path of a baseline YAML (report.Baseline): a
	// listed failure is an xfail, a listed spec or requirement that passes
	// an xpass, which fails the run.
	ExpectedFailures string
	// Requirements, if set, run only the specs of these CM-* IDs; LabelFilter
	// is a Ginkgo label filter (labels req:<ID>, area:<AREA>,
	// feature:<name>, level:must|should, suite:<name>). The report's
	// selection records both: the verdict judges the selected specs only.
	Requirements []string
	LabelFilter  string
	// ReportBudget is how many bytes of target-controlled strings each
	// report may carry (report.Budget; 0: report.DefaultReportBudget, 8
	// MiB): past it, strings are replaced by a marker saying how many bytes
	// were left out, and verdicts are kept (issue 28 N8).
	ReportBudget int
}

// ErrConfig is wrapped by every error Check returns.
var ErrConfig = errors.New("invalid conformance config")

// Check validates c without starting anything and returns the parsed
// baseline (nil without ExpectedFailures).
func (c Config) Check() (*report.Baseline, error) {
	if c.Target == "" {
		return nil, fmt.Errorf("%w: Target is empty (want exec:<command line>, tcp:<host:port>, …)", ErrConfig)
	}
	if err := targets.Check(c.Target); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	for _, id := range c.Requirements {
		if _, ok := spec.Lookup(id); !ok {
			return nil, fmt.Errorf("%w: unknown requirement id %q", ErrConfig, id)
		}
	}
	if _, err := types.ParseLabelFilter(c.Filter()); err != nil {
		return nil, fmt.Errorf("%w: label filter %q: %v", ErrConfig, c.Filter(), err)
	}
	if err := spec.CheckFeatures(append(append([]string{}, c.Features...), c.ExemptFeatures...)); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if c.Profile != "" {
		if _, err := spec.LookupProfile(c.Profile); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	if c.ExpectedFailures == "" {
		return nil, nil
	}
	b, err := report.LoadBaseline(c.ExpectedFailures)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return b, nil
}

// Filter is the label filter the run hands to Ginkgo: LabelFilter and the
// Requirements IDs.
func (c Config) Filter() string {
	f := c.LabelFilter
	if len(c.Requirements) > 0 {
		var parts []string
		for _, id := range c.Requirements {
			parts = append(parts, evidence.LabelRequirement+id)
		}
		f = strings.Join(parts, " || ")
		if c.LabelFilter != "" {
			f = "(" + c.LabelFilter + ") && (" + f + ")"
		}
	}
	return f
}

// Prepare checks c, does the target's one-time setup (an install, with
// progress on stderr), defines the suites' Ginkgo tree for c and returns
// the Run that judges it. Call it once per process, before RunSpecs; Test
// and the codemode-conformance command do.
func Prepare(c Config) (Run, error) {
	b, err := c.Check()
	if err != nil {
		return Run{}, err
	}
	if err := targets.Prepare(context.Background(), c.Target, os.Stderr); err != nil {
		return Run{}, fmt.Errorf("target %q: %w", c.Target, err)
	}
	if c.ResultsDir != "" {
		if err := os.MkdirAll(c.ResultsDir, 0o755); err != nil {
			return Run{}, err
		}
	}
	framework.Configure(framework.Config{Target: c.Target, Features: c.Features, ExemptFeatures: c.ExemptFeatures, Profile: c.Profile, ResultsDir: c.ResultsDir})
	gomega.RegisterFailHandler(ginkgo.Fail)
	framework.Define()
	filter, err := types.ParseLabelFilter(c.Filter())
	if err != nil {
		return Run{}, err
	}
	// The build's specs, walked without running them (before any report
	// node exists): the selection counts need every spec.
	return Run{Config: c, Baseline: b, Built: report.Inventory(ginkgo.PreviewSpecs(SuiteName), filter)}, nil
}

// Test runs every conformance suite against c.Target under go test and
// fails t when the overall verdict is a failure (see the package doc). The
// summary goes to stdout, the reports to c.ResultsDir.
func Test(t *testing.T, c Config) {
	t.Helper()
	run, err := Prepare(c)
	if err != nil {
		t.Fatal(err)
	}
	var out *Outcome
	ginkgo.ReportAfterSuite("conformance summary", func(r types.Report) {
		o := run.Evaluate(r)
		md, text := o.Summary()
		if c.ResultsDir != "" {
			if err := o.Write(c.ResultsDir, md); err != nil {
				t.Error(err)
			}
		}
		fmt.Print(text)
		out = &o
	})
	sc, rc := ginkgo.GinkgoConfiguration()
	if f := c.Filter(); f != "" {
		if sc.LabelFilter != "" {
			f = "(" + sc.LabelFilter + ") && (" + f + ")"
		}
		sc.LabelFilter = f
	}
	sc.RandomizeAllSpecs = false
	sc.RandomSeed = 1 // the same order on every run and every target, as the CLI
	// Ginkgo fails its T on any failed spec, an expected failure included:
	// the overall verdict decides instead.
	ginkgo.RunSpecs(verdictOnly{}, SuiteName, sc, rc)
	switch {
	case out == nil:
		t.Errorf("code mode conformance against %s: no verdict (the run stopped before its summary)", c.Target)
	case !out.Passed():
		msg := fmt.Sprintf("code mode conformance against %s: overall %s", c.Target, out.Conformance.Overall)
		for _, r := range out.Conformance.Reasons {
			msg += "\n- " + r
		}
		if c.ResultsDir != "" {
			msg += "\n(details in " + filepath.Join(c.ResultsDir, "report.html") + ")"
		}
		t.Error(msg)
	}
}

// verdictOnly is the testing.T Ginkgo reports to: it ignores Ginkgo's own
// pass/fail, which counts an xfail as failed.
type verdictOnly struct{}

func (verdictOnly) Fail() {}
