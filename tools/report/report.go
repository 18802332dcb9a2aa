// Package report turns a Ginkgo report into per-requirement verdicts and
// summaries (the conformance CLI and the CONFORMANCE.md generator share it).
package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/onsi/ginkgo/v2/types"
)

// Verdict of one spec or requirement.
type Verdict string

// Verdicts. XFail and XPass only occur with an expected-failures baseline.
const (
	Pass       Verdict = "pass"
	Skip       Verdict = "skip"
	Fail       Verdict = "fail"
	Error      Verdict = "error" // harness fault or target crash, not a failure of the requirement
	XFail      Verdict = "xfail" // failed as the baseline expects: does not fail the run
	XPass      Verdict = "xpass" // listed in the baseline but passed: the entry is stale, fails the run
	NotCovered Verdict = "not-covered"
	// Blocked: a precondition owned by another requirement failed
	// (framework.Blocked / framework.Precondition; evidence.BlockedEntry),
	// so the spec's own requirement was not judged. See Evaluate and Judge.
	Blocked Verdict = "blocked"
)

// HarnessErrorEntry is the report entry with which suites/framework marks a
// spec during which the target connection was lost or could not be
// re-established.
const HarnessErrorEntry = evidence.HarnessErrorEntry

// SelfReportedEntry is the report entry with which a spec says that part of
// its verdict trusts what the target reports about itself (runtime.stats),
// because no behaviour seen from outside can show it; the entry's value says
// what was trusted. A passing requirement with such a spec is shown as
// "pass (self-reported)" in summary.md and carries selfReported in
// conformance-report.yaml. Specs add it with framework.SelfReported.
const SelfReportedEntry = evidence.SelfReportedEntry

// SpecResult is one spec's outcome, tagged with its requirement.
type SpecResult struct {
	Requirement string
	Text        string // the It text, starting with the requirement ID
	FullText    string // container texts and the It text
	Location    string
	State       string // passed, failed, skipped, ...
	Message     string
	// HarnessError is the reason the framework marked the spec as a harness
	// error (the target died under it), empty otherwise.
	HarnessError string
	// SelfReported says what the spec trusted the target to report about
	// itself (SelfReportedEntry), empty when its evidence is all behaviour.
	SelfReported string
	// BlockedBy is the requirement whose precondition failed when the spec
	// was stopped by framework.Blocked (evidence.BlockedEntry), else empty.
	BlockedBy string
}

// RequirementOf returns the requirement ID of a spec from its req: label.
func RequirementOf(labels []string) string {
	for _, l := range labels {
		if strings.HasPrefix(l, evidence.LabelRequirement) {
			return strings.TrimPrefix(l, evidence.LabelRequirement)
		}
	}
	return ""
}

// Selected reports whether a spec report is an It the run's filters selected
// (a deselected spec is skipped without a message).
func Selected(s types.SpecReport) bool {
	return s.LeafNodeType == types.NodeTypeIt && !(s.State == types.SpecStateSkipped && s.Failure.Message == "")
}

// Spec converts one spec report.
func Spec(s types.SpecReport) SpecResult {
	out := SpecResult{
		Requirement: RequirementOf(s.Labels()),
		Text:        s.LeafNodeText,
		FullText:    s.FullText(),
		Location:    fmt.Sprintf("%s:%d", s.LeafNodeLocation.FileName, s.LeafNodeLocation.LineNumber),
		State:       s.State.String(),
		Message:     s.Failure.Message,
	}
	// Ginkgo keeps a skipped spec skipped when a cleanup fails after the
	// skip (framework.Blocked, RequireDrivable mid-spec) and records the
	// failure as an additional one: that failure (endSpec's crash or forged
	// calls) is the verdict, never hidden by the skip.
	if s.State == types.SpecStateSkipped {
		for _, f := range s.AdditionalFailures {
			if f.State.Is(types.SpecStateFailureStates) {
				out.State, out.Message = f.State.String(), f.Failure.Message+"\n(after: "+s.Failure.Message+")"
				break
			}
		}
	}
	for _, e := range s.ReportEntries {
		if e.Name == HarnessErrorEntry && out.HarnessError == "" {
			out.HarnessError = e.StringRepresentation()
		}
		if e.Name == SelfReportedEntry && out.SelfReported == "" {
			out.SelfReported = e.StringRepresentation()
		}
		if e.Name == evidence.BlockedEntry && out.BlockedBy == "" {
			var b evidence.Blocked
			if evidence.Decode(e.Value, &b) == nil {
				out.BlockedBy = b.By
			}
		}
	}
	return out
}

// Specs extracts the selected It specs of a report, in run order.
func Specs(r types.Report) []SpecResult {
	var out []SpecResult
	for _, s := range r.SpecReports {
		if Selected(s) {
			out = append(out, Spec(s))
		}
	}
	return out
}

// SuiteErrors lists the failures of suite-level nodes (BeforeSuite: the
// harness could not connect; AfterSuite, ...), each as "[node] message".
func SuiteErrors(r types.Report) []string {
	var out []string
	for _, s := range r.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt && s.State.Is(types.SpecStateFailureStates) {
			out = append(out, fmt.Sprintf("[%s] %s", s.LeafNodeType, Short(s.Failure.Message)))
		}
	}
	return out
}

// Outcome is a spec's verdict without a baseline: pass, skip, blocked (a
// skip by framework.Blocked: BlockedBy is set), error (a panic, interrupt
// or timeout in the spec, or a spec marked as a harness error) or fail.
func (s SpecResult) Outcome() Verdict {
	switch s.State {
	case "passed":
		return Pass
	case "skipped", "pending":
		if s.BlockedBy != "" {
			return Blocked
		}
		return Skip
	case "panicked", "interrupted", "aborted", "timedout":
		return Error
	}
	if s.HarnessError != "" {
		return Error
	}
	return Fail
}

// Verdicts aggregates spec outcomes per requirement without a baseline: any
// failure fails it, an error (and no failure) makes it an error, all-skipped
// is a skip. See Evaluate for the rules with a baseline.
func Verdicts(specs []SpecResult) map[string]Verdict {
	return Evaluate(specs, nil).Requirements
}

// rank orders verdicts for aggregation: a requirement gets the worst verdict
// of its specs. Blocked ranks above pass and skip (part of the requirement
// was not judged) and below every failure, xfail included: a requirement
// whose specs are blocked is blocked unless one of its specs fails.
func rank(v Verdict) int {
	switch v {
	case Pass:
		return 1
	case Skip:
		return 2
	case Blocked:
		return 3
	case XFail:
		return 4
	case XPass:
		return 5
	case Error:
		return 6
	case Fail:
		return 7
	}
	return 0
}

// AreaSummary counts verdicts in one requirement area. Failing lists the
// requirements that fail the run (fail, xpass, error).
type AreaSummary struct {
	Area, Title                                                string
	Pass, Fail, Skip, Error, XFail, XPass, Blocked, NotCovered int
	Failing                                                    []string
}

// Summarize groups verdicts by area, in requirement order. Requirements
// without any spec in this run count as not covered.
func Summarize(v map[string]Verdict) []AreaSummary {
	var out []AreaSummary
	idx := map[string]int{}
	titles := map[string]string{}
	for _, a := range spec.Areas() {
		titles[a.Code] = a.Title
	}
	for _, r := range spec.Requirements() {
		i, ok := idx[r.Area]
		if !ok {
			i = len(out)
			idx[r.Area] = i
			out = append(out, AreaSummary{Area: r.Area, Title: titles[r.Area]})
		}
		a := &out[i]
		switch v[r.ID] {
		case Pass:
			a.Pass++
		case Fail:
			a.Fail++
		case Error:
			a.Error++
		case XFail:
			a.XFail++
		case XPass:
			a.XPass++
		case Skip:
			a.Skip++
		case Blocked:
			a.Blocked++
		default:
			a.NotCovered++
		}
		if v[r.ID].Fails() {
			a.Failing = append(a.Failing, r.ID)
		}
	}
	return out
}

// Fails reports whether the verdict fails the run: fail, xpass or error.
func (v Verdict) Fails() bool { return v == Fail || v == XPass || v == Error }

// Markdown renders the summary table. impl names the implementation as
// initialize reported it, or says why there is none (e.g. "initialize
// failed"); empty leaves it out. It is the target's text: it is written
// MarkdownText, on one line and not rendered.
func Markdown(target, impl string, areas []AreaSummary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Conformance summary\n\nTarget: `%s`", target)
	if impl != "" {
		fmt.Fprintf(&b, " (%s)", MarkdownText(impl))
	}
	fmt.Fprintf(&b, "\n\nRequirement catalogue: version %d (spec/requirements.yaml; spec/CHANGES.md)\n\n", spec.Version())
	b.WriteString("| area | title | pass | fail | error | xfail | xpass | blocked | skip | not run | failing |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	var t AreaSummary
	for _, a := range areas {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d | %d | %d | %d | %s |\n", a.Area, a.Title, a.Pass, a.Fail, a.Error, a.XFail, a.XPass, a.Blocked, a.Skip, a.NotCovered, strings.Join(a.Failing, " "))
		t.Pass, t.Fail, t.Error, t.XFail, t.XPass, t.Blocked, t.Skip, t.NotCovered = t.Pass+a.Pass, t.Fail+a.Fail, t.Error+a.Error, t.XFail+a.XFail, t.XPass+a.XPass, t.Blocked+a.Blocked, t.Skip+a.Skip, t.NotCovered+a.NotCovered
	}
	fmt.Fprintf(&b, "| **total** | | %d | %d | %d | %d | %d | %d | %d | %d | |\n", t.Pass, t.Fail, t.Error, t.XFail, t.XPass, t.Blocked, t.Skip, t.NotCovered)
	b.WriteString("\nblocked: a precondition owned by another requirement failed (\"blocked by CM-X\"), so the requirement was not judged; it is neither a pass nor a failure, and keeps the run from success.\n")
	return b.String()
}

// Failing lists the requirement IDs whose verdict fails the run (fail, xpass,
// error), sorted.
func Failing(v map[string]Verdict) []string {
	var out []string
	for id, x := range v {
		if x.Fails() {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}
