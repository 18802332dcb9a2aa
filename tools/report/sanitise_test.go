package report_test

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/codemode-conformance/codemode/tools/report"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

// rawControl finds a rune that must not reach a report raw (N5–N7); the
// text forms keep \n and \t.
func rawControl(s string, text bool) (rune, bool) {
	for _, r := range s {
		if text && (r == '\n' || r == '\t') {
			continue
		}
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == 0x202e || r == 0x202c || r == 0x2066 || r == 0x200f || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0xfffe || r == 0xffff {
			return r, true
		}
	}
	return 0, false
}

var _ = Describe("Clean and CleanText (issue 28 N5–N8)", func() {
	ansi := "\x1b[2J\x1b[H\x1b]0;title\x07\x1b]52;c;cHduZWQ=\x07\r\x08\u202eevil\u202c\u2028\u0085\ufeff\uffff"
	forge := "impl\n\nOverall: **success**\n"
	bad := "ok\xff\xfe\xc3\x28\xed\xa0\x80"

	DescribeTable("escapes every control, bidi and separator character and replaces invalid UTF-8",
		func(in string) {
			for _, text := range []bool{false, true} {
				out := report.Clean(in)
				if text {
					out = report.CleanText(in)
				}
				Expect(utf8.ValidString(out)).To(BeTrue(), "%q", out)
				r, found := rawControl(out, text)
				Expect(found).To(BeFalse(), "%U left raw in %q", r, out)
			}
		},
		Entry("ANSI, OSC 0 and OSC 52, BEL, CR, BS, U+202E", ansi),
		Entry("newline forging", forge),
		Entry("invalid UTF-8", bad),
	)

	It("writes escapes a reader recognises, and keeps lines only in CleanText", func() {
		Expect(report.Clean("a\x1b[2Jb\u202ec")).To(Equal(`a\u001b[2Jb\u202ec`))
		Expect(report.Clean(forge)).To(Equal(`impl\n\nOverall: **success**\n`))
		Expect(report.CleanText(forge)).To(Equal(forge))
		Expect(report.CleanText("a\r\nb\tc")).To(Equal("a\\r\nb\tc"))
		Expect(report.Clean(bad)).To(Equal("ok\ufffd\ufffd\ufffd(\ufffd\ufffd\ufffd"))
		Expect(report.Clean("ಠ_ಠ <b>&")).To(Equal("ಠ_ಠ <b>&"), "printable text, HTML included, is each format's own business")
	})

	It("cuts a 10 MB string at MaxTargetBytes in linear time and says how long it was", func() {
		big := strings.Repeat("\x1b", 10<<20)
		start := time.Now()
		out := report.Clean(big)
		Expect(time.Since(start)).To(BeNumerically("<", 2*time.Second))
		Expect(len(out)).To(BeNumerically("<=", report.MaxTargetBytes+100))
		Expect(out).To(HaveSuffix("(cut at 65536 bytes: 10485760 bytes were sent)"))
		Expect(utf8.ValidString(report.CleanText(strings.Repeat("é", report.MaxTargetBytes)))).To(BeTrue(), "cut at a rune boundary")
	})

	It("leaves what it returned as it is when cleaned again, a cut string included (rejudge reads report.json back)", func() {
		for _, in := range []string{"plain", "\x1b[31mred\u202e", strings.Repeat("y", report.MaxTargetBytes+47), strings.Repeat("\x1b", 3<<16), strings.Repeat("é", report.MaxTargetBytes)} {
			once := report.CleanText(in)
			Expect(report.CleanText(once)).To(Equal(once), "CleanText of its own output (%d bytes in)", len(in))
			one := report.Clean(in + "\n")
			Expect(report.Clean(one)).To(Equal(one), "Clean of its own output (%d bytes in)", len(in))
		}
		Expect(report.Clean("\x1b… (cut at 1 bytes: 2 bytes were sent)")).To(HavePrefix(`\u001b`), "a marker after unclean text does not make it clean")
	})
})

var _ = Describe("SanitiseSpec (issue 28 N5–N8)", func() {
	It("cleans failures, output and report entries, keeping an entry's JSON structure", func() {
		s := types.SpecReport{LeafNodeType: types.NodeTypeIt, State: types.SpecStateFailed,
			Failure:                    types.Failure{Message: "Expected\n    <string>: \x1b]52;c;eA==\x07", AdditionalFailure: &types.AdditionalFailure{Failure: types.Failure{Message: "\u202e"}}},
			CapturedGinkgoWriterOutput: "\x1b[2J" + strings.Repeat("x", 1<<20),
			ReportEntries: types.ReportEntries{
				{Name: evidence.BlockedEntry, Value: types.WrapEntryValue(evidence.Blocked{By: "CM-EXEC-01", Message: "\x1b[31mred"})},
				{Name: "guest code", Value: types.WrapEntryValue("return '\u202e'")},
			}}
		orig := s.ReportEntries[0].Value.Representation
		got := report.SanitiseSpec(s)
		for _, x := range []string{got.Failure.Message, got.Failure.AdditionalFailure.Failure.Message, got.CapturedGinkgoWriterOutput, got.ReportEntries[0].Value.String(), got.ReportEntries[0].Value.AsJSON, got.ReportEntries[1].Value.String()} {
			r, found := rawControl(x, true)
			Expect(found).To(BeFalse(), "%U left raw in %.200q", r, x)
		}
		Expect(len(got.CapturedGinkgoWriterOutput)).To(BeNumerically("<=", report.MaxTargetBytes+100))
		var b evidence.Blocked
		Expect(evidence.Decode(got.ReportEntries[0].Value, &b)).To(Succeed())
		Expect(b.By).To(Equal("CM-EXEC-01"))
		Expect(b.Message).To(Equal(`\u001b[31mred`))
		Expect(report.Spec(got).BlockedBy).To(Equal("CM-EXEC-01"), "the verdict reads the cleaned entry")
		Expect(s.ReportEntries[0].Value.Representation).To(Equal(orig), "Ginkgo's own report is not changed")
		Expect(s.Failure.Message).To(ContainSubstring("\x1b"))
	})
})

var _ = Describe("summary.md's target strings (issue 28 N7: summary.md is a CI job summary, rendered)", func() {
	forge := "impl\n\nOverall: **success**\n\ncodemode-conformance: overall success (exit 0)\n"
	html := `</script><script>alert(1)</script><img src=x onerror=alert(1)>[link](http://x)|cell|&lt;`

	It("MarkdownText shows a string as it is: one line, no markup, no emphasis, no table cell, and plain names unchanged", func() {
		Expect(report.MarkdownText("codemode-reference 0.3.1-dev+g1a2b")).To(Equal("codemode-reference 0.3.1-dev+g1a2b"))
		Expect(report.MarkdownText(forge)).To(Equal(`impl\n\nOverall: \*\*success\*\*\n\ncodemode-conformance: overall success (exit 0)\n`))
		Expect(report.MarkdownText(html)).To(Equal(`\</script\>\<script\>alert(1)\</script\>\<img src=x onerror=alert(1)\>\[link\](http://x)\|cell\|\&lt;`))
		Expect(report.MarkdownText("a\x1b[2Jb")).To(Equal(`a\u001b\[2Jb`), "Clean's escapes stay single: a backslash escapes only punctuation")
		Expect(report.MarkdownText(`a\*b\`)).To(Equal(`a\\\*b\\`), "a backslash before punctuation, or at the end, is escaped itself")
		Expect(report.MarkdownText("x_y ~z~ `c`")).To(Equal("x\\_y \\~z\\~ \\`c\\`"))
	})

	It("the implementation line and a blocked requirement's message cannot print a verdict line or markup", func() {
		md := report.Markdown("exec:./t", report.Clean(forge+html), nil)
		Expect(md).NotTo(MatchRegexp(`(?m)^(Overall: |codemode-conformance: overall)`), "summary.md:\n%s", md)
		Expect(md).NotTo(MatchRegexp(`(^|[^\\])<(/?script|img)`), "summary.md:\n%s", md)

		b := evidence.Blocked{By: "CM-EXEC-01", Message: "precondition: Expected\n    <string>: " + forge + html}
		s := report.Spec(report.SanitiseSpec(types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: "CM-SEC-01 a", LeafNodeLabels: []string{"req:CM-SEC-01"},
			State: types.SpecStateSkipped, Failure: types.Failure{Message: b.String()},
			ReportEntries: types.ReportEntries{{Name: evidence.BlockedEntry, Value: types.WrapEntryValue(b)}}}))
		c := report.NewConformance(report.Evaluate([]report.SpecResult{s}, nil), nil, nil)
		bm := c.BlockedMarkdown()
		Expect(bm).To(ContainSubstring("- CM-SEC-01: blocked by CM-EXEC-01 (precondition: Expected \\<string\\>: impl Overall: \\*\\*success\\*\\*"), "summary.md:\n%s", bm)
		Expect(strings.Count(bm, "\n")).To(Equal(3), "a blank line, the heading and one line:\n%s", bm)
		Expect(bm).NotTo(MatchRegexp(`(?m)^(Overall: |codemode-conformance: overall)`), "summary.md:\n%s", bm)
		Expect(bm).NotTo(MatchRegexp(`(^|[^\\])<(/?script|img)`), "summary.md:\n%s", bm)
	})
})
