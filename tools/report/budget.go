package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/onsi/ginkgo/v2/types"
)

// DefaultReportBudget is how many bytes of target-controlled strings one
// report may carry (issue 28 N8), each of report.json, junit.xml,
// report.html, conformance-report.yaml and summary.md on its own: every
// string is already cut at MaxTargetBytes, and the budget bounds their sum,
// so no report grows with the number of strings a target can make the
// harness record. The reference's full runs carry about 1–2 MB in
// report.json, most of it the harness's own structure.
const DefaultReportBudget = 8 << 20

// keepBytes is the length up to which a string is always kept whole, budget
// or not (requirement IDs, codes, statuses, method names, short reasons):
// the structure a report's readers decode (a blocked spec's requirement,
// a transcript's methods) stays whole; it is charged to the budget all the
// same.
const keepBytes = 256

// leftOutMark starts every string a spent budget replaced.
const leftOutMark = "… (left out: "

// Budget is one report's budget of target-controlled bytes. Take charges a
// string to it; once a string does not fit, the budget is spent and every
// later string longer than keepBytes is replaced by a marker saying how
// many bytes were left out. The zero Budget is not usable: NewBudget.
type Budget struct {
	max, used int
	spent     bool
	// LeftOut counts the strings replaced and their bytes.
	LeftOut, LeftOutBytes int
}

// NewBudget is a budget of max bytes (<= 0: DefaultReportBudget).
func NewBudget(max int) *Budget { return &Budget{max: BudgetBytes(max)} }

// BudgetBytes is max, or DefaultReportBudget when max <= 0.
func BudgetBytes(max int) int {
	if max <= 0 {
		return DefaultReportBudget
	}
	return max
}

// JUnitCopies is how many times junit.xml can carry one string of the
// report: Ginkgo's JUnit writer puts a failure message into the failure's
// message attribute, its description and the spec's timeline, so junit.xml
// charges its strings against a third of the budget.
const JUnitCopies = 3

// Take returns s if it fits what is left of the budget (or is at most
// keepBytes long), charging its length; otherwise a marker of the form
// "… (left out: N bytes; this report's budget of M bytes of target strings
// is spent)", and the budget is spent from then on.
func (b *Budget) Take(s string) string {
	if len(s) <= keepBytes || !b.spent && b.used+len(s) <= b.max {
		b.used += len(s)
		return s
	}
	b.spent = true
	b.LeftOut++
	b.LeftOutBytes += len(s)
	return fmt.Sprintf("%s%d bytes; this report's budget of %d bytes of target strings is spent)", leftOutMark, len(s), b.max)
}

// headBytes is how much of a failure message TakeHead keeps before the
// marker: enough for the harness's own prefixes ("blocked by CM-X: ",
// "not implemented or not drivable: ") that readers of report.json
// classify a spec by.
const headBytes = 200

// TakeHead is Take for a failure message: a message left out keeps its
// first headBytes bytes (cut at a character boundary) before the marker.
func (b *Budget) TakeHead(s string) string {
	out := b.Take(s)
	if !IsLeftOut(out) {
		return out
	}
	cut := min(len(s), headBytes)
	for cut > 0 && cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + out
}

// Spent reports whether a string has been left out.
func (b *Budget) Spent() bool { return b.spent }

// IsLeftOut reports whether s is a marker of a spent budget (or a failure
// message's head and the marker, TakeHead).
func IsLeftOut(s string) bool {
	i := strings.Index(s, leftOutMark)
	return i >= 0 && i <= headBytes && strings.HasSuffix(s, "target strings is spent)")
}

// BudgetReport returns r with its target-controlled strings charged to b,
// as the formats written from the Ginkgo report (report.json, junit.xml)
// carry them: first every spec's failure messages (so that each failing
// spec keeps its message before any evidence), then each spec's captured
// output, events, progress reports and report entries in run order. A
// report entry keeps its JSON structure while b lasts (each string in it
// charged, strings of keepBytes or less kept); once b is spent an entry
// becomes one marker, except the entries a verdict is read from
// (blocked, harness error, self-reported), which keep their structure. The
// specs' states, labels and texts are the harness's and never charged: no
// verdict depends on the budget. r is not changed.
func BudgetReport(r types.Report, b *Budget) types.Report {
	r = BudgetMessages(r, b)
	return BudgetEvidence(r, b)
}

// BudgetMessages is BudgetReport's first pass: the suite's failure reasons
// and each spec's failure messages and forwarded panics.
func BudgetMessages(r types.Report, b *Budget) types.Report {
	r.SpecialSuiteFailureReasons = takeAll(b, r.SpecialSuiteFailureReasons)
	specs := make(types.SpecReports, len(r.SpecReports))
	for i, s := range r.SpecReports {
		s.Failure.Message = b.TakeHead(s.Failure.Message)
		s.Failure.ForwardedPanic = b.Take(s.Failure.ForwardedPanic)
		if s.Failure.AdditionalFailure != nil {
			a := *s.Failure.AdditionalFailure
			a.Failure.Message = b.TakeHead(a.Failure.Message)
			s.Failure.AdditionalFailure = &a
		}
		if len(s.AdditionalFailures) > 0 {
			af := make([]types.AdditionalFailure, len(s.AdditionalFailures))
			for j, f := range s.AdditionalFailures {
				f.Failure.Message = b.TakeHead(f.Failure.Message)
				f.Failure.ForwardedPanic = b.Take(f.Failure.ForwardedPanic)
				f.Failure.AdditionalFailure = nil
				af[j] = f
			}
			s.AdditionalFailures = af
		}
		specs[i] = s
	}
	r.SpecReports = specs
	return r
}

// BudgetEvidence is BudgetReport's second pass: each spec's captured
// output, events, progress reports and report entries.
func BudgetEvidence(r types.Report, b *Budget) types.Report {
	specs := make(types.SpecReports, len(r.SpecReports))
	for i, s := range r.SpecReports {
		s.CapturedGinkgoWriterOutput = b.Take(s.CapturedGinkgoWriterOutput)
		s.CapturedStdOutErr = b.Take(s.CapturedStdOutErr)
		s.Failure.ProgressReport = budgetProgress(b, s.Failure.ProgressReport)
		if len(s.SpecEvents) > 0 {
			ev := make(types.SpecEvents, len(s.SpecEvents))
			for j, e := range s.SpecEvents {
				e.Message = b.Take(e.Message)
				ev[j] = e
			}
			s.SpecEvents = ev
		}
		if len(s.ProgressReports) > 0 {
			pr := make([]types.ProgressReport, len(s.ProgressReports))
			for j, p := range s.ProgressReports {
				pr[j] = budgetProgress(b, p)
			}
			s.ProgressReports = pr
		}
		if len(s.ReportEntries) > 0 {
			es := make(types.ReportEntries, len(s.ReportEntries))
			for j, e := range s.ReportEntries {
				e.Value = budgetEntry(b, e.Name, e.Value)
				es[j] = e
			}
			s.ReportEntries = es
		}
		specs[i] = s
	}
	r.SpecReports = specs
	return r
}

func budgetProgress(b *Budget, p types.ProgressReport) types.ProgressReport {
	p.Message = b.Take(p.Message)
	p.CapturedGinkgoWriterOutput = b.Take(p.CapturedGinkgoWriterOutput)
	p.AdditionalReports = takeAll(b, p.AdditionalReports)
	return p
}

func takeAll(b *Budget, xs []string) []string {
	if xs == nil {
		return nil
	}
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = b.Take(x)
	}
	return out
}

// verdictEntry reports whether a verdict is read from entries named name
// (report.Spec): they keep their structure whatever the budget.
func verdictEntry(name string) bool {
	return name == HarnessErrorEntry || name == SelfReportedEntry || name == evidence.BlockedEntry
}

// budgetEntry charges an entry's value (its JSON's strings and its
// representation) to b; see BudgetReport.
func budgetEntry(b *Budget, name string, v types.ReportEntryValue) types.ReportEntryValue {
	js := v.AsJSON
	if raw := v.GetRawValue(); raw != nil {
		if j, err := json.Marshal(raw); err == nil {
			js = string(j)
		}
	}
	var x any
	d := json.NewDecoder(strings.NewReader(js))
	d.UseNumber()
	if b.Spent() && !verdictEntry(name) || js == "" || d.Decode(&x) != nil || x == nil {
		rep := b.Take(v.String())
		out := types.WrapEntryValue(rep)
		out.Representation = rep
		if j, err := json.Marshal(rep); err == nil {
			out.AsJSON = string(j)
		}
		return out
	}
	x = takeJSON(b, x)
	out := types.WrapEntryValue(x)
	out.Representation = b.Take(v.String())
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(x) == nil {
		out.AsJSON = strings.TrimSuffix(buf.String(), "\n")
	}
	return out
}

func takeJSON(b *Budget, x any) any {
	switch v := x.(type) {
	case string:
		return b.Take(v)
	case []any:
		for i := range v {
			v[i] = takeJSON(b, v[i])
		}
	case map[string]any:
		for k, e := range v {
			v[k] = takeJSON(b, e)
		}
	}
	return x
}

// BudgetEvaluation returns ev with the messages of its specs charged to b
// (report.html shows them): the evaluation's verdicts are unchanged.
func BudgetEvaluation(ev Evaluation, b *Budget) Evaluation {
	specs := make([]SpecVerdict, len(ev.Specs))
	for i, s := range ev.Specs {
		s.Message = b.TakeHead(s.Message)
		s.HarnessError = b.TakeHead(s.HarnessError)
		specs[i] = s
	}
	ev.Specs = specs
	return ev
}

// Budgeted returns c with its target-controlled strings charged to b, for
// conformance-report.yaml and summary.md: the implementation's name and
// version, its declared features and profile, the suite errors and each
// spec's message. Verdicts, counts and IDs are the harness's and kept.
func (c Conformance) Budgeted(b *Budget) Conformance {
	c.Implementation = Peer{Name: b.Take(c.Implementation.Name), Version: b.Take(c.Implementation.Version)}
	c.Features.Declared = takeAll(b, c.Features.Declared)
	c.Profile.Declared = b.Take(c.Profile.Declared)
	c.SuiteErrors = takeAll(b, c.SuiteErrors)
	reqs := make([]RequirementLine, len(c.Requirements))
	for i, r := range c.Requirements {
		specs := make([]SpecLine, len(r.Specs))
		for j, s := range r.Specs {
			s.Message = b.TakeHead(s.Message)
			specs[j] = s
		}
		r.Specs = specs
		reqs[i] = r
	}
	c.Requirements = reqs
	return c
}
