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
