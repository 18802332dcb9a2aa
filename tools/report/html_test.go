package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	specs "github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/codemode-conformance/codemode/tools/report"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

// exchange records one request and response as suites/framework's Run.log
// does.
func exchange(method string, req, resp any) evidence.Exchange {
	return evidence.NewExchange(method, req, resp, nil)
}

// tags lists the element names of every tag in page.
var tags = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)`)

// markup is every element report.html's template writes.
var markup = map[string]bool{}

func init() {
	for _, t := range strings.Fields("html head meta title style body h1 h2 h3 table tr th td code span ul li p pre a section blockquote br details summary") {
		markup[t] = true
	}
}

// renderReport renders report.html for r with baseline b.
var renderReport func(r types.Report, b *report.Baseline) string

var _ = Describe("RenderHTML", func() {
	const (
		hostileCode   = `</pre></script><script>alert("code")</script><img src=x onerror=alert(1)>` + "\ntext('</details><iframe src=javascript:alert(2)>');"
		hostileOutput = `</pre><img src=x onerror=alert(3)><script>alert(4)</script>`
		hostileTool   = `<svg onload=alert(5)>`
	)
	it := func(id, text string, state types.SpecState, msg string, entries ...types.ReportEntry) types.SpecReport {
		return types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: id + " " + text, LeafNodeLabels: []string{"req:" + id},
			ContainerHierarchyTexts: []string{"limits"}, LeafNodeLocation: types.CodeLocation{FileName: "limits.go", LineNumber: 10},
			State: state, Failure: types.Failure{Message: msg}, ReportEntries: entries}
	}
	res := map[string]any{"status": "completed", "value": 1, "output": []any{map[string]any{"type": "text", "text": hostileOutput}}}
	// The result as a target may send it: without \u003c escapes.
	var enc bytes.Buffer
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false)
	_ = e.Encode(res)
	raw := strings.TrimSpace(enc.String())
	transcript := evidence.Transcript{Run: "run-1", Exchanges: []evidence.Exchange{
		exchange("run.prepare", map[string]any{"run": "run-1"}, map[string]any{"run": "run-1", "codeModeActive": true, "tools": []any{map[string]any{"name": "exec"}, map[string]any{"name": "wait"}}}),
		exchange("tool.exec", map[string]any{"run": "run-1", "toolCallId": "run-1-call-1", "input": map[string]any{"code": hostileCode}}, json.RawMessage(raw)),
		exchange("tool.exec", map[string]any{"run": "run-1", "input": map[string]any{"code": "return 1"}},
			map[string]any{"status": "failed", "code": "output_limit_exceeded", "error": "too big", "output": strings.Repeat("y", 100<<10)}),
	}, Invocations: []evidence.Invocation{{ToolCallID: "n1", ParentToolCallID: "run-1-call-1", Tool: "echo",
		Params: `{"run":"run-1","toolCallId":"n1","parentToolCallId":"run-1-call-1","tool":"echo","input":{"message":"` + hostileTool + `"}}`}}}
	message := "expected status \"failed\" with code \"output_limit_exceeded\", got status \"completed\""
	r := types.Report{SuiteDescription: "codemode conformance", SpecReports: types.SpecReports{
		it("CM-LIM-03", "output beyond maxOutputBytes fails", types.SpecStateFailed,
			message+"\nresult "+raw+"\nguest code:\n"+hostileCode,
			types.ReportEntry{Name: report.TranscriptEntry + "run-1", Value: types.WrapEntryValue(transcript)},
			types.ReportEntry{Name: evidence.FailureEntry, Value: types.WrapEntryValue(evidence.Failure{Message: message, Result: raw, GuestCode: hostileCode})}),
		it("CM-LIM-01", "timeout", types.SpecStateFailed, "timed out", types.ReportEntry{Name: report.TranscriptEntry + "run-2", Value: types.WrapEntryValue(evidence.Transcript{Run: "run-2", Exchanges: []evidence.Exchange{exchange("tool.exec", map[string]any{}, map[string]any{"status": "completed"})}})}),
		it("CM-EXEC-01", "exec runs code", types.SpecStatePassed, ""),
		it("CM-EXEC-02", "yield", types.SpecStateSkipped, `feature "yield" is not declared by the target`),
	}}

	render := func(b *report.Baseline) string {
		GinkgoHelper()
		return renderReport(r, b)
	}
	renderReport = func(r types.Report, b *report.Baseline) string {
		GinkgoHelper()
		ev := report.Evaluate(report.Specs(r), b)
		c := report.NewConformance(ev, nil, b)
		c.Target = "fake:no-output-limit"
		c.Implementation = report.Peer{Name: "impl<b>", Version: "1"}
		var out bytes.Buffer
		Expect(report.RenderHTML(&out, r, ev, c)).To(Succeed())
		return out.String()
	}

	It("escapes guest code, tool output and nested calls, and still shows them", func() {
		page := render(nil)
		for _, m := range tags.FindAllStringSubmatch(page, -1) {
			Expect(markup).To(HaveKey(strings.ToLower(m[2])), "a tag the template does not write: %s", m[0])
		}
		Expect(strings.ToLower(page)).NotTo(ContainSubstring("<script"))
		Expect(strings.ToLower(page)).NotTo(ContainSubstring("<img"))

		Expect(page).To(ContainSubstring(`<pre class="code">`+html.EscapeString(hostileCode)+`</pre>`), "the failing exec's guest code, from the failure message and from the transcript")
		Expect(strings.Count(page, html.EscapeString(hostileCode))).To(Equal(2))
		Expect(page).To(ContainSubstring(html.EscapeString(hostileOutput)), "the result the failure message carries")
		Expect(page).To(ContainSubstring(html.EscapeString(hostileTool)), "the nested call")
		Expect(page).To(ContainSubstring("impl&lt;b&gt; 1"))
	})

	It("gives each spec that fails the run its requirement, failure, result and transcript, and the others a table row", func() {
		page := render(nil)
		req, _ := specs.Lookup("CM-LIM-03")
		Expect(page).To(ContainSubstring(`<h3>CM-LIM-03 <span class="v v-fail">fail</span></h3>`))
		Expect(page).To(ContainSubstring(html.EscapeString(req.Text)))
		Expect(page).To(ContainSubstring("MUST · feature <code>core</code> · basis seed · source "), "the requirement's level, feature, basis and source")
		Expect(page).To(ContainSubstring(fmt.Sprintf("<tr><th>catalogue</th><td>version %d; requirements judged, by basis: seed ", specs.Version())), "the summary names the catalogue version and the verdicts per basis")
		Expect(page).To(ContainSubstring("Spec: limits CM-LIM-03 output beyond maxOutputBytes fails"))
		Expect(page).To(ContainSubstring("at <code>limits.go:10</code>"))
		Expect(page).To(ContainSubstring(`<pre>expected status &#34;failed&#34; with code &#34;output_limit_exceeded&#34;, got status &#34;completed&#34;</pre>`), "the message without the result and the guest code")
		Expect(page).To(ContainSubstring("<p class=\"label\">Result</p>\n<pre>{\n  &#34;output&#34;: ["), "the result, indented")
		Expect(page).To(ContainSubstring("Transcript of run <code>run-1</code> (4 entries)"))
		Expect(page).To(ContainSubstring("→ <code>run.prepare</code> <span class=\"muted\">← codeModeActive true, tools: exec, wait</span>"))
		Expect(page).To(ContainSubstring("→ <code>tool.exec</code> <span class=\"muted\">← completed</span>"))
		Expect(page).To(ContainSubstring("← failed output_limit_exceeded: too big</span>"))
		Expect(page).To(ContainSubstring("↺ <code>tool.invoke</code> <span class=\"muted\">echo (from run-1-call-1)</span>"))
		Expect(page).To(ContainSubstring(`<a href="#spec-2">CM-LIM-01 timeout</a>`))

		Expect(page).To(ContainSubstring("…(cut: 4096 of 102400 bytes)"), "a response over 64 KiB keeps its shape, its long strings cut with a note")
		Expect(len(page)).To(BeNumerically("<", 200<<10))

		Expect(page).To(MatchRegexp(`<tr><td>CM-EXEC-01</td><td>CM-EXEC-01 exec runs code</td><td><span class="v v-pass">pass</span></td></tr>`))
		Expect(page).To(ContainSubstring(`<tr><td>CM-EXEC-02</td><td>CM-EXEC-02 yield<br><span class="muted">feature &#34;yield&#34; is not declared by the target</span></td><td><span class="v v-skip">skip</span></td></tr>`))
		Expect(page).To(ContainSubstring(`<span class="v v-failure">failure</span>`))
		Expect(page).To(ContainSubstring("<tr><th>requirements</th><td>1</td><td>2</td>"))
	})

	It("lists xfail specs with their reason and flags an xpass as a stale entry", func() {
		page := render(baseline("requirements: [{id: CM-LIM-01, reason: timeouts not <yet>}]\nspecs: [CM-EXEC-01 exec runs code]"))
		Expect(page).To(ContainSubstring("<h2>Expected failures (xfail: 1)</h2>"))
		Expect(page).To(ContainSubstring(`<tr><td>CM-LIM-01</td><td><a href="#spec-2">CM-LIM-01 timeout</a></td><td>timeouts not &lt;yet&gt;</td></tr>`))
		Expect(page).To(ContainSubstring(`<h3>CM-EXEC-01 <span class="v v-xpass">xpass</span></h3>`))
		Expect(page).To(ContainSubstring("Passed, but listed in the expected-failures baseline (listed): the entry is stale"))
		Expect(page).To(ContainSubstring("<h2>Specs that fail the run (2)</h2>"), "the fail and the xpass")
	})

	It("heads a target crash Error (reason) and folds the raw error", func() {
		crashed := it("CM-EXEC-01", "crashed", types.SpecStateFailed, "Unexpected error:\n    <*errors.errorString | 0xc000123456>: EOF",
			types.ReportEntry{Name: report.HarnessErrorEntry, Value: types.WrapEntryValue("target connection lost during tool.exec")})
		page := renderReport(types.Report{SuiteDescription: "codemode conformance", SpecReports: types.SpecReports{crashed}}, nil)
		Expect(page).To(ContainSubstring(`<p class="label">Error (target connection lost during tool.exec)</p>`), "the heading names the error")
		Expect(page).To(MatchRegexp(`<details class="x"><summary>Raw error</summary><pre>Unexpected error:\n\s+&lt;\*errors.errorString`), "the raw Gomega error is folded")
		Expect(page).NotTo(ContainSubstring("Harness error"))
		Expect(page).NotTo(ContainSubstring(`<p class="label">Failure`), "an error is no failure")
	})

	It("reads the typed evidence back from report.json (entry.Value.AsJSON) as from the live report", func() {
		js, err := json.Marshal(r)
		Expect(err).NotTo(HaveOccurred())
		var back types.Report
		Expect(json.Unmarshal(js, &back)).To(Succeed())
		Expect(back.SpecReports[0].ReportEntries[0].Value.AsJSON).To(ContainSubstring(`"exchanges"`), "the transcript travels as JSON")
		Expect(renderReport(back, nil)).To(Equal(render(nil)), "the page from report.json is the page from the run")
	})

	It("writes the file", func() {
		path := filepath.Join(GinkgoT().TempDir(), "report.html")
		ev := report.Evaluate(report.Specs(r), nil)
		Expect(report.WriteHTML(r, ev, report.NewConformance(ev, nil, nil), path)).To(Succeed())
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(HavePrefix("<!DOCTYPE html>"))
		Expect(string(data)).To(ContainSubstring("not contacted: no spec ran"))
	})
})
