package report

import (
	"encoding/xml"
	"fmt"
	"os"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
)

// WriteJUnit writes junit.xml for the selected specs of r, plus any failed
// suite node, with the verdicts of ev (Evaluate of Specs(r)). Each testcase
// name carries the requirement ID (the text starts with it and the labels,
// req:<ID> among them, follow in brackets) and a "requirement" property. An
// xfail is a skipped testcase, an xpass a failure of type "xpass", an error
// an error of type "error"; the status attribute is the verdict for those.
func WriteJUnit(r types.Report, ev Evaluation, path string) error {
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
	if err := reporters.GenerateJUnitReportWithConfig(filtered, path, reporters.JunitReportConfig{}); err != nil {
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
	doc.Tests, doc.Failures, doc.Errors, doc.Disabled = 0, 0, 0, 0
	for i := range doc.TestSuites {
		suite := &doc.TestSuites[i]
		if len(suite.TestCases) != len(verdicts) {
			return fmt.Errorf("junit: %d testcases for %d specs", len(suite.TestCases), len(verdicts))
		}
		suite.Tests, suite.Failures, suite.Errors, suite.Skipped, suite.Disabled = 0, 0, 0, 0, 0
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
		doc.Tests += suite.Tests
		doc.Failures += suite.Failures
		doc.Errors += suite.Errors
		doc.Disabled += suite.Disabled + suite.Skipped
	}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), out...), 0o644)
}

func patchCase(tc *reporters.JUnitTestCase, v SpecVerdict) {
	if tc.Properties == nil {
		tc.Properties = &reporters.JUnitProperties{}
	}
	tc.Properties.Properties = append([]reporters.JUnitProperty{{Name: "requirement", Value: v.Requirement}}, tc.Properties.Properties...)
	description := ""
	if tc.Failure != nil {
		description = tc.Failure.Description
	} else if tc.Error != nil {
		description = tc.Error.Description
	}
	switch v.Verdict {
	case XFail:
		tc.Failure, tc.Error = nil, nil
		tc.Skipped = &reporters.JUnitSkipped{Message: "xfail: expected failure (" + v.Expected + "): " + Short(v.Message)}
	case XPass:
		tc.Failure = &reporters.JUnitFailure{Type: "xpass", Message: "passed, but listed as an expected failure (" + v.Expected + "): remove the stale entry"}
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
