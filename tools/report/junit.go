package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
)

// WriteJUnit writes junit.xml for the selected specs of r, plus any failed
// suite node, with the verdicts of ev (Evaluate of Specs(r)). Each testcase
// name carries the requirement ID (the text starts with it and the labels,
// req:<ID> among them, follow in brackets) and "requirement" and "verdict"
// properties. So that CI shows a failing run as failing and a passing one as
// passing:
//
//   - an xpass (listed in the baseline, passes now) is a <failure
//     type="xpass"> whose message starts "stale expected failure": it fails
//     the run;
//   - an xfail (listed, fails as expected) is <skipped> with a message
//     starting "xfail: expected failure (reason)": it does not fail the run,
//     and CI systems list skips with their message rather than hide them
//     among the passes;
//   - an error (harness fault or target crash) is an <error type="error">;
//   - a blocked spec (a precondition owned by another requirement failed)
//     is <skipped> with the message "blocked by CM-X: …" and the property
//     verdict=blocked: not judged, so neither a pass nor a failure, and CI
//     lists it with its reason; the blocking requirement's own specs fail;
//   - a spec listed in the baseline whose verdict is blocked or skip is a
//     <failure type="baseline-error">: the entry is stale and fails the run.
//
// The status attribute is the verdict for those (baseline-error for the
// last). <testsuite> counts
// skipped (skips and xfails) and disabled (pending) apart, and <testsuites>
// carries their sums under the same names. suiteProps are added to every
// <testsuite>'s properties (the run's "profile", protocol.md §9). Paths are
// relative to the checkout the harness was built from (the run's own
// directory is "."), and only specs that did not pass or skip carry
// Ginkgo's timeline in <system-err> (report.json keeps every one).
func WriteJUnit(r types.Report, ev Evaluation, path string, suiteProps ...reporters.JUnitProperty) error {
	filtered := r
	filtered.SpecReports = nil
	var verdicts []*SpecVerdict // parallel to filtered.SpecReports; nil for suite nodes
	k := 0
	for _, s := range r.SpecReports {
		switch {
		case Selected(s) && RequirementOf(s.Labels()) != "":
			if k >= len(ev.Specs) || ev.Specs[k].Text != s.LeafNodeText {
				return fmt.Errorf("junit: the evaluation does not match the report at spec %q", s.LeafNodeText)
			}
			filtered.SpecReports = append(filtered.SpecReports, s)
			verdicts = append(verdicts, &ev.Specs[k])
			k++
		case s.LeafNodeType != types.NodeTypeIt && s.State.Is(types.SpecStateFailureStates):
			filtered.SpecReports = append(filtered.SpecReports, s)
			verdicts = append(verdicts, nil)
		}
	}
	// A passing or skipped spec's Ginkgo timeline (its transcript and log)
	// is report.json's and report.html's; junit.xml keeps it for the others.
	cfg := reporters.JunitReportConfig{OmitTimelinesForSpecState: types.SpecStatePassed | types.SpecStateSkipped | types.SpecStatePending}
	if err := reporters.GenerateJUnitReportWithConfig(filtered, path, cfg); err != nil {
		return err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc reporters.JUnitTestSuites
	if err := xml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("junit: re-reading %s: %w", path, err)
	}
	out := junitSuites{Time: doc.Time, TestSuites: doc.TestSuites}
	for i := range doc.TestSuites {
		suite := &doc.TestSuites[i]
		if len(suite.TestCases) != len(verdicts) {
			return fmt.Errorf("junit: %d testcases for %d specs", len(suite.TestCases), len(verdicts))
		}
		suite.Tests, suite.Failures, suite.Errors, suite.Skipped, suite.Disabled = 0, 0, 0, 0, 0
		suite.Properties.Properties = append(suite.Properties.Properties, suiteProps...)
		for j := range suite.TestCases {
			tc := &suite.TestCases[j]
			if v := verdicts[j]; v != nil {
				patchCase(tc, *v)
			}
			suite.Tests++
			switch {
			case tc.Failure != nil:
				suite.Failures++
			case tc.Error != nil:
				suite.Errors++
			case tc.Skipped != nil && tc.Status == types.SpecStatePending.String():
				suite.Disabled++
			case tc.Skipped != nil:
				suite.Skipped++
			}
		}
		out.Tests += suite.Tests
		out.Failures += suite.Failures
		out.Errors += suite.Errors
		out.Disabled += suite.Disabled
		out.Skipped += suite.Skipped
	}
	data, err = xml.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), relativePaths(data, r.SuitePath)...), 0o644)
}

// moduleRoot is the directory of this module's source as the binary was
// built ("" under -trimpath, where locations are module paths already): the
// spec locations in a report start with it.
var moduleRoot = func() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(file))) // <root>/tools/report/junit.go
}()

// relativePaths makes the spec locations in data relative to the module
// root and names the run's directory suitePath "." (the <testsuite
// package>), so that junit.xml does not carry the checkout's or the user's
// absolute paths.
func relativePaths(data []byte, suitePath string) []byte {
	for _, dir := range []string{moduleRoot, suitePath} {
		if dir == "" || dir == "/" {
			continue
		}
		data = bytes.ReplaceAll(data, []byte(dir+string(filepath.Separator)), nil)
		data = bytes.ReplaceAll(data, []byte(`"`+dir+`"`), []byte(`"."`))
	}
	return data
}

// junitSuites is Ginkgo's reporters.JUnitTestSuites with a skipped count:
// Ginkgo's <testsuites disabled> adds skipped to pending, while its
// <testsuite disabled> counts pending only; here both levels count the two
// apart, under the same names.
type junitSuites struct {
	XMLName    xml.Name                   `xml:"testsuites"`
	Tests      int                        `xml:"tests,attr"`
	Disabled   int                        `xml:"disabled,attr"`
	Skipped    int                        `xml:"skipped,attr"`
	Errors     int                        `xml:"errors,attr"`
	Failures   int                        `xml:"failures,attr"`
	Time       float64                    `xml:"time,attr"`
	TestSuites []reporters.JUnitTestSuite `xml:"testsuite"`
}

func patchCase(tc *reporters.JUnitTestCase, v SpecVerdict) {
	if tc.Properties == nil {
		tc.Properties = &reporters.JUnitProperties{}
	}
	tc.Properties.Properties = append([]reporters.JUnitProperty{{Name: "requirement", Value: v.Requirement}, {Name: "verdict", Value: string(v.Verdict)}}, tc.Properties.Properties...)
	description := ""
	if tc.Failure != nil {
		description = tc.Failure.Description
	} else if tc.Error != nil {
		description = tc.Error.Description
	}
	if v.BaselineError != "" {
		tc.Failure = &reporters.JUnitFailure{Type: "baseline-error", Message: "baseline error: the spec is listed in the expected-failures baseline, but " + v.BaselineError,
			Description: "A blocked or skipped (not drivable) spec is never an expected failure: the entry is stale and fails the run. Remove it. The spec's own outcome: " + Short(v.Message)}
		tc.Error, tc.Skipped = nil, nil
		tc.Status = "baseline-error"
		return
	}
	switch v.Verdict {
	case Blocked:
		tc.Failure, tc.Error = nil, nil
		tc.Skipped = &reporters.JUnitSkipped{Message: Short(v.Message)}
	case XFail:
		tc.Failure, tc.Error = nil, nil
		tc.Skipped = &reporters.JUnitSkipped{Message: "xfail: expected failure (" + v.Expected + "): " + Short(v.Message)}
	case XPass:
		tc.Failure = &reporters.JUnitFailure{Type: "xpass", Message: "stale expected failure: passed, but listed in the expected-failures baseline (" + v.Expected + "); remove the entry",
			Description: "The spec passed, but it or its requirement " + v.Requirement + " is listed in the --expected-failures baseline. A stale entry fails the run: remove it."}
		tc.Error, tc.Skipped = nil, nil
	case Error:
		msg := v.Message
		if v.HarnessError != "" {
			msg = v.HarnessError
		}
		if tc.Error == nil {
			tc.Error = &reporters.JUnitError{Message: msg, Description: description}
		}
		tc.Error.Type = "error"
		tc.Failure = nil
	default:
		return
	}
	tc.Status = string(v.Verdict)
}
