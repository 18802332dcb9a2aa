package limits

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

// boundedSize is the size CM-LIM-08 bounds: the content size
// (result.ContentSize) of the result's JSON without telemetry and
// pendingToolCalls.
func boundedSize(res Result) int64 {
	var m map[string]json.RawMessage
	Expect(json.Unmarshal(res.Raw, &m)).To(Succeed(), "a result must be a JSON object: %s", res)
	delete(m, "telemetry")
	delete(m, "pendingToolCalls")
	b, err := json.Marshal(m)
	Expect(err).NotTo(HaveOccurred(), "re-encoding the result")
	return result.ContentSize(b)
}

// htmlEscape matches the escapes of an HTML-escaping JSON encoder.
var htmlEscape = regexp.MustCompile(`(?i)\\u00(3c|3e|26)`)

var _ = Describe("limits", "output limit on every result", func() {
	It("CM-LIM-08", "every result, failed or waiting too, stays within maxOutputBytes plus a 1 KiB envelope", func(ctx SpecContext) {
		const limit = 2048
		cells := []struct{ name, code string }{
			{"one huge text", `text("x".repeat(3e6)); return 1;`},
			{"a huge text, caught", `try { text("x".repeat(3e6)); } catch (e) {} return 1;`},
			{"a huge json", `json({a: "y".repeat(1e6)}); return 1;`},
			{"many empty items", `for (let i = 0; i < 100000; i++) text(""); return 1;`},
			{"output, then a huge value", `text("o".repeat(2000)); return "v".repeat(1e6);`},
			{"output, then a huge error", `text("o".repeat(2000)); throw new Error("E".repeat(200000));`},
			{"output, then a huge error name", `text("o".repeat(2000)); const e = new Error("m"); e.name = "N".repeat(200000); throw e;`},
			{"output, then a huge tool error", Guest(`text("o".repeat(2000)); await call("fail", {message: "F".repeat(200000)});`)},
			{"output before a suspension", Guest(`text("o".repeat(2000)); await call("slow", {ms: 1500}); text("p".repeat(3000)); return 1;`)},
		}
		// Each cell gets a run of its own: whether a run still serves after
		// an over-limit cell is not CM-LIM-08's text, so no cell may depend
		// on the one before it.
		for _, c := range cells {
			r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxOutputBytes": limit, "timeoutMs": 3000}), Tools: tools.Standard()})
			res, steps := r.RunToCompletion(ctx, c.code)
			Expect(res).NotTo(BeCompleted(), "%s: the cell writes more than maxOutputBytes %d and cannot complete", c.name, limit)
			for i, st := range steps {
				Expect(boundedSize(st)).To(BeNumerically("<=", limit+result.ResultEnvelopeBytes),
					"%s: result %d of the cell (status %s) carries more than maxOutputBytes %d + %d bytes (output, value and error together)\n%s",
					c.name, i+1, st.Status, limit, result.ResultEnvelopeBytes, st)
			}
		}
	})

	It("CM-LIM-09", "maxOutputBytes does not count JSON escapes, and nothing is HTML-escaped on the wire", func(ctx SpecContext) {
		const limit = 2048
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxOutputBytes": limit}), Tools: tools.Standard()})
		// Each is 1500 bytes of content (within 2048) but 3000 to 9000
		// bytes once JSON-escaped.
		cells := []struct {
			name, code string
			value      any
		}{
			{"control characters as text", `text("\u0001".repeat(1500)); return 1;`, 1},
			{"newlines as json", `json("\n".repeat(1500)); return 1;`, 1},
			{"quotes as the value", `return "\"".repeat(1500);`, strings.Repeat(`"`, 1500)},
			{"backslashes as the value", `return "\\".repeat(1500);`, strings.Repeat(`\`, 1500)},
			{"HTML characters as text and value", `text("<>&".repeat(250)); return "<&>".repeat(240);`, strings.Repeat("<&>", 240)},
		}
		for _, c := range cells {
			res, _ := r.RunToCompletion(ctx, c.code)
			Expect(res).To(CompleteWith(c.value), "%s: 1500 bytes of content are within maxOutputBytes %d, however many bytes their JSON escapes take", c.name, limit)
		}
		res, _ := r.RunToCompletion(ctx, Guest(`const r = (await call("echo", {s: "<b>&amp;</b>"})); text("<p>"); json({h: "</script>"}); return r.s;`))
		Expect(res).To(CompleteWith("<b>&amp;</b>"), "the echo tool returns its input %s", EnvelopeNote)
		Expect(htmlEscape.FindAllString(string(res.Raw), 3)).To(BeEmpty(),
			"the target HTML-escaped <, > or & in the result it sent (an encoder with HTML escaping on; JSON does not need it and it inflates the result sixfold)\n%s", res)
		calls := r.Tools.CallsOf("echo")
		Expect(calls).To(HaveLen(1), "the cell makes one echo call")
		Expect(htmlEscape.FindAllString(string(calls[0].Input), 3)).To(BeEmpty(),
			"the target HTML-escaped <, > or & in the tool.invoke input it sent: %s", calls[0].Input)
	})
})
