// Package report turns a Ginkgo report into per-requirement verdicts and
// summaries (the conformance CLI and the CONFORMANCE.md generator share it).
package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/onsi/ginkgo/v2/types"
)

// Verdict of one requirement.
type Verdict string

// Verdicts, from best to worst.
const (
	Pass       Verdict = "pass"
	Skip       Verdict = "skip"
	Fail       Verdict = "fail"
	Error      Verdict = "error"
	NotCovered Verdict = "not-covered"
)

// SpecResult is one spec's outcome, tagged with its requirement.
type SpecResult struct {
	Requirement string
	Text        string
	Location    string
	State       string // passed, failed, skipped, ...
	Message     string
}

// RequirementOf returns the requirement ID of a spec from its req: label.
func RequirementOf(labels []string) string {
	for _, l := range labels {
		if strings.HasPrefix(l, "req:") {
			return strings.TrimPrefix(l, "req:")
		}
	}
	return ""
}

// Specs extracts the It specs of a report.
func Specs(r types.Report) []SpecResult {
	var out []SpecResult
	for _, s := range r.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt || (s.State == types.SpecStateSkipped && s.Failure.Message == "") {
			continue // not selected by the run's filters
		}
		out = append(out, SpecResult{
			Requirement: RequirementOf(s.Labels()),
			Text:        s.LeafNodeText,
			Location:    fmt.Sprintf("%s:%d", s.LeafNodeLocation.FileName, s.LeafNodeLocation.LineNumber),
			State:       s.State.String(),
			Message:     s.Failure.Message,
		})
	}
	return out
}

// Verdicts aggregates spec outcomes per requirement: any failure fails it, a
// harness-side panic or interrupt is an error, all-skipped is a skip.
func Verdicts(specs []SpecResult) map[string]Verdict {
	v := map[string]Verdict{}
	for _, s := range specs {
		if s.Requirement == "" {
			continue
		}
		var this Verdict
		switch s.State {
		case "passed":
			this = Pass
		case "skipped", "pending":
			this = Skip
		case "panicked", "interrupted", "aborted", "timedout":
			this = Error
		default:
			this = Fail
		}
		if rank(this) > rank(v[s.Requirement]) {
			v[s.Requirement] = this
		}
	}
	return v
}

func rank(v Verdict) int {
	switch v {
	case Pass:
		return 1
	case Skip:
		return 2
	case Error:
		return 3
	case Fail:
		return 4
	}
	return 0
}

// AreaSummary counts verdicts in one requirement area.
type AreaSummary struct {
	Area, Title                         string
	Pass, Fail, Skip, Error, NotCovered int
	Failing                             []string
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
			a.Failing = append(a.Failing, r.ID)
		case Error:
			a.Error++
			a.Failing = append(a.Failing, r.ID)
		case Skip:
			a.Skip++
		default:
			a.NotCovered++
		}
	}
	return out
}

// Markdown renders the summary table.
func Markdown(target, impl string, areas []AreaSummary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Conformance summary\n\nTarget: `%s` (%s)\n\n", target, impl)
	b.WriteString("| area | title | pass | fail | error | skip | not run | failing |\n|---|---|---|---|---|---|---|---|\n")
	var tp, tf, te, ts, tn int
	for _, a := range areas {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d | %s |\n", a.Area, a.Title, a.Pass, a.Fail, a.Error, a.Skip, a.NotCovered, strings.Join(a.Failing, " "))
		tp, tf, te, ts, tn = tp+a.Pass, tf+a.Fail, te+a.Error, ts+a.Skip, tn+a.NotCovered
	}
	fmt.Fprintf(&b, "| **total** | | %d | %d | %d | %d | %d | |\n", tp, tf, te, ts, tn)
	return b.String()
}

// Failing lists failing or erroring requirement IDs, sorted.
func Failing(v map[string]Verdict) []string {
	var out []string
	for id, x := range v {
		if x == Fail || x == Error {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}
