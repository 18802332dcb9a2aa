package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/onsi/ginkgo/v2/types"
)

// TranscriptEntry is the prefix of the report entries in which
// suites/framework attaches a run's evidence.Transcript to a failing spec
// ("transcript <runId>").
const TranscriptEntry = evidence.TranscriptPrefix

// MaxHTMLEntry caps each piece of text report.html shows (one request, one
// response, one nested call, a failure message, guest code): the rest is
// cut with a note saying where the full text is.
const MaxHTMLEntry = MaxTargetBytes

// WriteHTML writes report.html for the selected specs of r with the
// verdicts of ev (Evaluate of Specs(r)) and the summary of c (the run's
// conformance-report.yaml). See RenderHTML.
func WriteHTML(r types.Report, ev Evaluation, c Conformance, path string) error {
	var b bytes.Buffer
	if err := RenderHTML(&b, r, ev, c); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// RenderHTML renders report.html: one self-contained page (inline CSS, no
// script, no external asset) with
//
//   - a summary: target, implementation, harness, features, selection,
//     overall verdict and why, requirement totals, suite errors;
//   - a section per spec that fails the run (fail, error, xpass): its
//     requirement (ID, level, feature, text), spec text and location,
//     verdict, failure message, the result and guest code it names (the
//     typed evidence.Failure entry), and the transcript of each run of the spec (requests and
//     responses in collapsible blocks, the guest code of each exec shown
//     decoded);
//   - the xfail specs with their baseline reason (details collapsed);
//   - a table of the other specs (pass, skip with its reason).
//
// Everything that comes from the target or the guest is escaped by
// html/template; each piece is cut at MaxHTMLEntry bytes.
func RenderHTML(w io.Writer, r types.Report, ev Evaluation, c Conformance) error {
	reports, err := pairSpecs(r, ev)
	if err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	p := htmlPage{
		Target:         c.Target,
		Implementation: c.ImplementationLine(),
		Harness:        strings.TrimSpace(c.Harness.Name + " " + c.Harness.Version),
		Catalogue:      c.Catalogue.Line(),
		Profile:        c.Profile.Line(),
		Features:       strings.Join(c.Features.Effective, ", "),
		Required:       c.Features.Required.Lines(c.Profile.Name),
		FeatureSource:  c.Features.Source,
		Selection:      c.Selection.Describe(),
		NotRun:         c.Selection.NotRunLine(),
		Overall:        c.Overall,
		Reasons:        c.Reasons,
		Totals:         c.Totals,
		Specs:          map[Verdict]int{},
	}
	if !r.StartTime.IsZero() {
		p.Started = r.StartTime.UTC().Format(time.RFC3339)
		p.Duration = r.RunTime.Round(time.Millisecond).String()
	}
	if c.ExpectedFailures != nil {
		p.Baseline, p.Unused, p.Flaky = c.ExpectedFailures.File, c.ExpectedFailures.Unused, c.FlakyLine()
		if p.Baseline == "" {
			p.Baseline = "(given)"
		}
	}
	for _, s := range r.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt && s.State.Is(types.SpecStateFailureStates) {
			p.SuiteErrors = append(p.SuiteErrors, htmlSuiteError{Node: s.LeafNodeType.String(), Location: location(s.Failure.Location), Message: clip(s.Failure.Message)})
		}
	}
	for i, v := range ev.Specs {
		p.Specs[v.Verdict]++
		switch {
		case v.Verdict == Fail || v.Verdict == Error || v.Verdict == XPass || v.BaselineError != "":
			p.Failing = append(p.Failing, newHTMLSpec(i, v, reports[i]))
		case v.Verdict == Blocked:
			p.Blocked = append(p.Blocked, newHTMLSpec(i, v, reports[i]))
		case v.Verdict == XFail:
			p.XFail = append(p.XFail, newHTMLSpec(i, v, reports[i]))
		default:
			row := htmlRow{Requirement: v.Requirement, Text: v.Text, Verdict: v.Verdict}
			if v.Verdict == Skip {
				row.Note = v.Message
			}
			p.Others = append(p.Others, row)
		}
	}
	return htmlTemplate.Execute(w, p)
}

// ImplementationLine names the implementation as initialize reported it,
// or says why there is none.
func (c Conformance) ImplementationLine() string {
	impl := strings.TrimSpace(c.Implementation.Name + " " + c.Implementation.Version)
	switch {
	case impl != "":
		return impl
	case len(c.SuiteErrors) > 0:
		return "initialize failed"
	}
	return "not contacted: no spec ran"
}

// pairSpecs returns the spec reports behind ev.Specs, in the same order.
func pairSpecs(r types.Report, ev Evaluation) ([]types.SpecReport, error) {
	out := make([]types.SpecReport, 0, len(ev.Specs))
	for _, s := range r.SpecReports {
		if !Selected(s) || RequirementOf(s.Labels()) == "" {
			continue
		}
		if k := len(out); k >= len(ev.Specs) || ev.Specs[k].Text != s.LeafNodeText {
			return nil, fmt.Errorf("the evaluation does not match the report at spec %q", s.LeafNodeText)
		}
		out = append(out, s)
	}
	if len(out) != len(ev.Specs) {
		return nil, fmt.Errorf("the evaluation has %d specs, the report %d", len(ev.Specs), len(out))
	}
	return out, nil
}

type htmlPage struct {
	Target, Implementation, Harness, Profile, Features, FeatureSource string
	Catalogue                                                         string
	Required                                                          []string
	Started, Duration                                                 string
	Selection, NotRun                                                 string
	Overall                                                           Overall
	Reasons                                                           []string
	Totals                                                            Totals
	Specs                                                             map[Verdict]int
	Baseline                                                          string
	Unused                                                            []string
	Flaky                                                             string
	SuiteErrors                                                       []htmlSuiteError
	Failing, XFail, Blocked                                           []htmlSpec
	Others                                                            []htmlRow
}

type htmlSuiteError struct{ Node, Location, Message string }

type htmlRow struct {
	Requirement, Text string
	Verdict           Verdict
	Note              string
}

type htmlSpec struct {
	Anchor                                        string
	Requirement, Level, Feature, Source, ReqText  string
	Basis                                         string
	Text, FullText, Location, Duration            string
	Verdict                                       Verdict
	Expected, HarnessError                        string
	BlockedBy, BaselineError                      string
	Message, Result, GuestCode, FailureAt, Output string
	Transcripts                                   []htmlTranscript
	Entries                                       []htmlEntry
}

type htmlTranscript struct {
	Name      string
	Exchanges []htmlExchange
}

type htmlEntry struct{ Name, Value string }

// htmlExchange is one request and its response (→), one nested call the
// harness answered (↺) or one it refused (⊘).
type htmlExchange struct {
	Arrow, Method, Summary       string
	GuestCode, Request, Response string
}

func newHTMLSpec(i int, v SpecVerdict, s types.SpecReport) htmlSpec {
	h := htmlSpec{
		Anchor:        fmt.Sprintf("spec-%d", i+1),
		Requirement:   v.Requirement,
		Text:          v.Text,
		FullText:      v.FullText,
		Location:      v.Location,
		Verdict:       v.Verdict,
		Expected:      v.Expected,
		HarnessError:  v.HarnessError,
		BaselineError: v.BaselineError,
		BlockedBy:     v.BlockedBy,
		Output:        clip(s.CapturedGinkgoWriterOutput),
	}
	if s.RunTime > 0 {
		h.Duration = s.RunTime.Round(time.Millisecond).String()
	}
	if r, ok := spec.Lookup(v.Requirement); ok {
		h.Level, h.Feature, h.Source, h.ReqText = r.Level, r.Feature, r.Source, r.Text
		h.Basis = strings.Join(r.Basis, " + ")
	}
	// The failure message, or its typed evidence (the message without the
	// result and guest code it names, and those two apart).
	message := v.Message
	for _, e := range s.ReportEntries {
		switch {
		case strings.HasPrefix(e.Name, TranscriptEntry):
			var t evidence.Transcript
			if err := evidence.Decode(e.Value, &t); err != nil {
				h.Entries = append(h.Entries, htmlEntry{Name: e.Name, Value: clip(fmt.Sprintf("(not a transcript: %v)\n%s", err, e.StringRepresentation()))})
				continue
			}
			if t.Run == "" {
				t.Run = strings.TrimPrefix(e.Name, TranscriptEntry)
			}
			h.Transcripts = append(h.Transcripts, newHTMLTranscript(t))
		case e.Name == evidence.FailureEntry && v.Verdict != XPass:
			var f evidence.Failure
			if evidence.Decode(e.Value, &f) != nil {
				continue // the message holds the same text
			}
			message = f.Message
			h.Result, h.GuestCode = clip(evidence.Text(f.Result)), clip(f.GuestCode)
		case e.Name == HarnessErrorEntry, e.Name == evidence.BlockedEntry:
		default:
			h.Entries = append(h.Entries, htmlEntry{Name: e.Name, Value: clip(e.StringRepresentation())})
		}
	}
	if v.Verdict != XPass {
		h.Message = clip(strings.TrimRight(message, "\n"))
		if s.Failure.ForwardedPanic != "" && !strings.Contains(h.Message, s.Failure.ForwardedPanic) {
			h.Message = strings.TrimSpace(h.Message + "\n" + clip(s.Failure.ForwardedPanic))
		}
		if s.Failure.Location.FileName != "" {
			h.FailureAt = location(s.Failure.Location)
		}
	}
	return h
}

func location(l types.CodeLocation) string {
	if l.FileName == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", l.FileName, l.LineNumber)
}

// newHTMLTranscript lays out a run's transcript: each exchange with a
// one-line summary of its answer and the guest code of an exec decoded,
// then the nested calls the harness answered, then the refused ones.
func newHTMLTranscript(t evidence.Transcript) htmlTranscript {
	out := htmlTranscript{Name: t.Run}
	for _, e := range t.Exchanges {
		x := htmlExchange{Arrow: "→", Method: e.Method, Request: clip(evidence.Text(e.Request)), Response: clip(evidence.Text(e.Response))}
		if e.Error != "" {
			x.Response = clip("error: " + e.Error)
		}
		var in struct {
			Input struct{ Code, Command string }
		}
		if json.Unmarshal([]byte(e.Request), &in) == nil {
			x.GuestCode = in.Input.Code
			if x.GuestCode == "" {
				x.GuestCode = in.Input.Command
			}
			x.GuestCode = clip(x.GuestCode)
		}
		x.Summary = summarize(e)
		out.Exchanges = append(out.Exchanges, x)
	}
	for _, c := range t.Invocations {
		x := htmlExchange{Arrow: "↺", Method: "tool.invoke", Summary: c.Tool, Request: clip(evidence.Text(c.Params))}
		if c.ParentToolCallID != "" {
			x.Summary += " (from " + c.ParentToolCallID + ")"
		}
		out.Exchanges = append(out.Exchanges, x)
	}
	for _, r := range t.Refused {
		out.Exchanges = append(out.Exchanges, htmlExchange{Arrow: "⊘", Method: "tool.invoke", Summary: "refused as forged", Request: clip(r)})
	}
	return out
}

// summarize sums up the answer to one exchange in a line: the status of a
// result, a protocol error, or what run.prepare activated. The strings are
// decoded from the target's JSON, so the line is cleaned again (Clean).
func summarize(e evidence.Exchange) string { return Clean(summarizeAnswer(e)) }

func summarizeAnswer(e evidence.Exchange) string {
	if e.Error != "" {
		return "protocol error: " + cut(Short(e.Error), 120)
	}
	if len(e.Response) == 0 {
		return "no response recorded"
	}
	var res struct {
		Status, Code, Error, RunID string
		CodeModeActive             *bool
		Tools                      []struct{ Name string }
	}
	if json.Unmarshal([]byte(e.Response), &res) != nil {
		if e.Cut {
			return "answered (cut short in the transcript)"
		}
		return "answered"
	}
	switch {
	case res.Status != "":
		s := res.Status
		if res.Code != "" {
			s += " " + res.Code
		}
		if res.Error != "" {
			s += ": " + cut(Short(res.Error), 120)
		}
		if res.RunID != "" {
			s += " (runId " + res.RunID + ")"
		}
		return s
	case res.CodeModeActive != nil:
		var names []string
		for _, t := range res.Tools {
			names = append(names, t.Name)
		}
		return fmt.Sprintf("codeModeActive %t, tools: %s", *res.CodeModeActive, cut(strings.Join(names, ", "), 120))
	}
	return "answered"
}

// cut shortens s to n runes.
func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// clip cuts s after MaxHTMLEntry bytes (at a character boundary) and says
// so.
func clip(s string) string {
	if len(s) <= MaxHTMLEntry {
		return s
	}
	n := MaxHTMLEntry
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + fmt.Sprintf("\n… (cut: %d of %d bytes shown; report.json has what the harness recorded)", n, len(s))
}

var htmlTemplate = template.Must(template.New("report.html").Funcs(template.FuncMap{
	"count": func(m map[Verdict]int, v string) int { return m[Verdict(v)] },
}).Parse(htmlSource))

const htmlSource = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Conformance report: {{.Target}} — {{.Overall}}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 76em; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; margin-top: 2em; } h3 { font-size: 1.1em; margin: 0; }
table { border-collapse: collapse; margin: .5em 0; } td, th { border: 1px solid #ddd; padding: .2em .5em; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
pre { background: #f7f7f7; border: 1px solid #e2e2e2; padding: .5em; overflow: auto; max-height: 40em; white-space: pre-wrap; word-break: break-all; margin: .3em 0; }
pre.code { background: #fffbe8; border-color: #eadb9c; }
code { background: #f2f2f2; padding: 0 .2em; }
.v { display: inline-block; padding: 0 .5em; border-radius: .3em; font-weight: bold; font-size: .9em; color: #fff; background: #777; }
.v-pass, .v-success { background: #2a7d2a; } .v-fail, .v-failure { background: #c62828; } .v-error { background: #8e24aa; }
.v-xpass { background: #e65100; } .v-xfail, .v-partial { background: #b28704; } .v-skip { background: #78909c; } .v-blocked { background: #6a1b9a; }
section.spec { border: 1px solid #ddd; border-left: 6px solid #c62828; padding: .6em 1em; margin: 1em 0; }
section.spec.error { border-left-color: #8e24aa; } section.spec.xpass { border-left-color: #e65100; }
blockquote { margin: .4em 0; padding: .2em .8em; border-left: 3px solid #bbb; color: #444; }
details { margin: .25em 0; } details > summary { cursor: pointer; } details.x { border: 1px solid #e6e6e6; padding: .2em .5em; }
.muted { color: #666; } .label { font-weight: bold; margin: .5em 0 0; }
.required { border: 2px solid #c62828; padding: .4em 1.6em; }
</style>
</head>
<body>
<h1>Conformance report</h1>
{{- if .Required}}
<ul class="required">{{range .Required}}<li>{{.}}</li>{{end}}</ul>
{{- end}}
<table>
<tr><th>target</th><td><code>{{.Target}}</code></td></tr>
<tr><th>implementation</th><td>{{.Implementation}}</td></tr>
<tr><th>harness</th><td>{{.Harness}}</td></tr>
<tr><th>catalogue</th><td>{{.Catalogue}}</td></tr>
{{- if .Profile}}
<tr><th>profile</th><td>{{.Profile}}</td></tr>
{{- end}}
<tr><th>features</th><td>{{.Features}}{{if .FeatureSource}} <span class="muted">({{.FeatureSource}})</span>{{end}}</td></tr>
{{- if .Started}}
<tr><th>run</th><td>{{.Started}}, {{.Duration}}</td></tr>
{{- end}}
{{- if .Baseline}}
<tr><th>expected failures</th><td><code>{{.Baseline}}</code>{{if .Unused}}; entries that matched no spec of this run: {{range $i, $u := .Unused}}{{if $i}}; {{end}}{{$u}}{{end}}{{end}}{{if .Flaky}}; {{.Flaky}}{{end}}</td></tr>
{{- end}}
<tr><th>overall</th><td><span class="v v-{{.Overall}}">{{.Overall}}</span>
{{- if .Reasons}}<ul>{{range .Reasons}}<li>{{.}}</li>{{end}}</ul>{{end}}</td></tr>
</table>
<p>{{.Selection}}{{if .NotRun}} {{.NotRun}}{{end}}</p>
<table>
<tr><th></th><th>pass</th><th>fail</th><th>error</th><th>xfail</th><th>xpass</th><th>blocked</th><th>skip</th></tr>
<tr><th>requirements</th><td>{{.Totals.Pass}}</td><td>{{.Totals.Fail}}</td><td>{{.Totals.Error}}</td><td>{{.Totals.XFail}}</td><td>{{.Totals.XPass}}</td><td>{{.Totals.Blocked}}</td><td>{{.Totals.Skip}}</td></tr>
<tr><th>specs</th><td>{{count .Specs "pass"}}</td><td>{{count .Specs "fail"}}</td><td>{{count .Specs "error"}}</td><td>{{count .Specs "xfail"}}</td><td>{{count .Specs "xpass"}}</td><td>{{count .Specs "blocked"}}</td><td>{{count .Specs "skip"}}</td></tr>
</table>
{{- if .SuiteErrors}}
<h2>Suite errors</h2>
{{- range .SuiteErrors}}
<p class="label">{{.Node}}{{if .Location}} at <code>{{.Location}}</code>{{end}}</p>
<pre>{{.Message}}</pre>
{{- end}}
{{- end}}
{{- if .Failing}}
<h2>Specs that fail the run ({{len .Failing}})</h2>
<ul>
{{- range .Failing}}
<li><a href="#{{.Anchor}}">{{.Text}}</a> <span class="v v-{{.Verdict}}">{{.Verdict}}</span></li>
{{- end}}
</ul>
{{- range .Failing}}
<section class="spec {{.Verdict}}" id="{{.Anchor}}">
{{template "spec" .}}
</section>
{{- end}}
{{- end}}
{{- if .XFail}}
<h2>Expected failures (xfail: {{len .XFail}})</h2>
<table>
<tr><th>requirement</th><th>spec</th><th>reason</th></tr>
{{- range .XFail}}
<tr><td>{{.Requirement}}</td><td><a href="#{{.Anchor}}">{{.Text}}</a></td><td>{{.Expected}}</td></tr>
{{- end}}
</table>
{{- range .XFail}}
<details class="x" id="{{.Anchor}}"><summary><span class="v v-xfail">xfail</span> {{.Text}}</summary>
{{template "spec" .}}
</details>
{{- end}}
{{- end}}
{{- if .Blocked}}
<h2>Blocked, not judged (blocked: {{len .Blocked}})</h2>
<p class="muted">A precondition owned by another requirement failed: the fault is charged to that requirement, whose own specs judge it.</p>
<table>
<tr><th>requirement</th><th>spec</th><th>blocked by</th></tr>
{{- range .Blocked}}
<tr><td>{{.Requirement}}</td><td><a href="#{{.Anchor}}">{{.Text}}</a></td><td>{{.BlockedBy}}</td></tr>
{{- end}}
</table>
{{- range .Blocked}}
<details class="x" id="{{.Anchor}}"><summary><span class="v v-blocked">blocked by {{.BlockedBy}}</span> {{.Text}}</summary>
{{template "spec" .}}
</details>
{{- end}}
{{- end}}
{{- if .Others}}
<h2>Other specs ({{len .Others}})</h2>
<table>
<tr><th>requirement</th><th>spec</th><th>verdict</th></tr>
{{- range .Others}}
<tr><td>{{.Requirement}}</td><td>{{.Text}}{{if .Note}}<br><span class="muted">{{.Note}}</span>{{end}}</td><td><span class="v v-{{.Verdict}}">{{.Verdict}}</span></td></tr>
{{- end}}
</table>
{{- end}}
</body>
</html>
{{define "spec"}}
<h3>{{.Requirement}} <span class="v v-{{.Verdict}}">{{.Verdict}}</span></h3>
<p>{{if .Level}}{{.Level}} · feature <code>{{.Feature}}</code> · basis {{.Basis}} · source {{.Source}}{{else}}<span class="muted">not in spec/requirements.yaml</span>{{end}}</p>
{{- if .ReqText}}
<blockquote>{{.ReqText}}</blockquote>
{{- end}}
<p>Spec: {{.FullText}}<br><span class="muted">at <code>{{.Location}}</code>{{if .Duration}}, {{.Duration}}{{end}}</span></p>
{{- if eq .Verdict "xpass"}}
<p>Passed, but listed in the expected-failures baseline ({{.Expected}}): the entry is stale and fails the run; remove it.</p>
{{- end}}
{{- if eq .Verdict "xfail"}}
<p>Expected failure: {{.Expected}}</p>
{{- end}}
{{- if .BaselineError}}
<p>Baseline error: listed in the expected-failures baseline, but {{.BaselineError}}</p>
{{- end}}
{{- if .HarnessError}}
<p class="label">Error ({{.HarnessError}})</p>
<p>Not a failure of {{.Requirement}}: the spec could not be judged. A crash or hang of the target is the target's fault, a lost connection with no exit may be the harness's; the transcript below shows the last exchange.</p>
{{- if .Message}}
<details class="x"><summary>Raw error{{if .FailureAt}} at <code>{{.FailureAt}}</code>{{end}}</summary><pre>{{.Message}}</pre></details>
{{- end}}
{{- else if .Message}}
<p class="label">Failure{{if .FailureAt}} at <code>{{.FailureAt}}</code>{{end}}</p>
<pre>{{.Message}}</pre>
{{- end}}
{{- if .GuestCode}}
<p class="label">Guest code</p>
<pre class="code">{{.GuestCode}}</pre>
{{- end}}
{{- if .Result}}
<p class="label">Result</p>
<pre>{{.Result}}</pre>
{{- end}}
{{- range .Transcripts}}
<details open><summary class="label">Transcript of run <code>{{.Name}}</code> ({{len .Exchanges}} entries)</summary>
{{- range .Exchanges}}
<details class="x"><summary>{{if .Method}}{{.Arrow}} <code>{{.Method}}</code>{{end}} {{if .Summary}}<span class="muted">{{if eq .Arrow "→"}}← {{end}}{{.Summary}}</span>{{end}}</summary>
{{- if .GuestCode}}
<p class="label">guest code</p>
<pre class="code">{{.GuestCode}}</pre>
{{- end}}
<p class="label">{{if eq .Arrow "↺"}}nested call the harness answered{{else if eq .Arrow "⊘"}}nested call the harness refused{{else}}request{{end}}</p>
<pre>{{.Request}}</pre>
{{- if .Response}}
<p class="label">response</p>
<pre>{{.Response}}</pre>
{{- end}}
</details>
{{- end}}
</details>
{{- end}}
{{- range .Entries}}
<details class="x"><summary>report entry <code>{{.Name}}</code></summary><pre>{{.Value}}</pre></details>
{{- end}}
{{- if .Output}}
<details class="x"><summary>GinkgoWriter output</summary><pre>{{.Output}}</pre></details>
{{- end}}
{{end}}
`
