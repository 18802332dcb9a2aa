package main

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/onsi/gomega"
)

func TestReasonLine(t *testing.T) {
	long := `{"status":"completed","value":1,"output":[{"type":"text","text":"` + strings.Repeat("x", 5000) + `"}]}`
	for _, c := range []struct {
		name, msg, spec string
		want            []string // in this order
		not             []string
	}{
		{name: "description, expected and actual around a long result",
			msg:  "5000 bytes of text must exceed maxOutputBytes 2048\nexpected status \"failed\" with code \"output_limit_exceeded\", got status \"completed\" code \"\" error \"\"\nresult " + long,
			want: []string{`5000 bytes of text must exceed maxOutputBytes 2048: expected status "failed" with code "output_limit_exceeded", got status "completed" code "" error ""; result {"status":"completed",`, "…"}},
		{name: "a corpus case: no guest code or transcript, the reason of BeEmpty kept",
			msg: "case ser-huge-value.js: a cell value larger than maxOutputBytes fails\nrequirements [CM-LIM-03], class serialisation\nexpected: {code: output_limit_exceeded}\nactual result " + long +
				"\nguest code:\nconst id = (n) => 1;\nreturn \"x\".repeat(1 << 20);\nrequest: run.prepare {run: r-1}\n  tool.exec {code: <guest code>} → completed\nExpected\n    <string>: status completed (code \"\", error \"\"), want failed\nto be empty",
			spec: "CM-LIM-03 case ser-huge-value.js: a cell value larger than maxOutputBytes fails",
			want: []string{"requirements [CM-LIM-03], class serialisation: expected: {code: output_limit_exceeded}; actual result {", "…; status completed (code \"\", error \"\"), want failed"},
			not:  []string{"guest code", "repeat", "tool.exec", "to be empty", "case ser-huge-value.js"}},
		{name: "a go-cmp diff is one part: what it removes, then what it adds",
			msg:  "tools.call must resolve with the tool's own result value\nvalue mismatch (-want +got):\n\u00a0\u00a0map[string]any{\n+\u00a0\t\"result\": map[string]any{\n+\u00a0\t\t\"details\": map[string]any{\"sum\": float64(5)},\n+\u00a0\t},\n-\u00a0\t\"sum\": float64(5),\n\u00a0\u00a0}\n\nresult " + long,
			want: []string{`tools.call must resolve with the tool's own result value: value mismatch (-want +got): -"sum": float64(5), +"result": map[string]any{`, "; result {"}},
		{name: "a Gomega matcher message is one part",
			msg:  "the sum must be 2\nExpected\n    <int>: 1\nto equal\n    <int>: 2",
			want: []string{"the sum must be 2: Expected <int>: 1 to equal <int>: 2"}},
	} {
		got := reasonLine(c.msg, c.spec, reasonMaxRunes)
		if n := utf8.RuneCountInString(got); n > reasonMaxRunes+1 {
			t.Errorf("%s: %d runes, want at most %d: %s", c.name, n, reasonMaxRunes+1, got)
		}
		rest := got
		for _, w := range c.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%s: want %q (after the earlier parts) in\n%s", c.name, w, got)
				break
			}
			rest = rest[i+len(w):]
		}
		for _, n := range c.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: %q must not be in\n%s", c.name, n, got)
			}
		}
	}
}

// A target's huge value in a failure message is cut as a short one is: the
// line keeps its description and stays within the bound (issue 28 N4: a
// 256 KB message took 83 s, a 10 MB one never finished).
func TestReasonLineOfAHugeMessage(t *testing.T) {
	g := gomega.NewWithT(t)
	value := `{"value":"` + strings.Repeat("x", 10<<20) + `"}`
	msg := "the cell must fail with output_limit_exceeded\nExpected\n    <string>: " + value + "\nto equal\n    <string>: failed"
	line := reasonLine(msg, "CM-LIM-03 spec", 200)
	g.Expect(utf8.RuneCountInString(line)).To(gomega.BeNumerically("<=", 201), "the line is cut to its bound")
	g.Expect(line).To(gomega.HavePrefix("the cell must fail with output_limit_exceeded: "), "the description leads")
	many := strings.Repeat("one short line of a long failure\n", 200000)
	g.Expect(utf8.RuneCountInString(reasonLine(many, "x", 200))).To(gomega.BeNumerically("<=", 201), "200,000 lines are cut to the bound too")
}

// BenchmarkReasonLineHuge times the cut of a 10 MB failure message.
func BenchmarkReasonLineHuge(b *testing.B) {
	msg := "why\nExpected\n    <string>: " + strings.Repeat("y", 10<<20) + "\nto equal\n    <string>: z"
	for b.Loop() {
		reasonLine(msg, "spec", 200)
	}
}
