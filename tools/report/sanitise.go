package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/onsi/ginkgo/v2/types"
)

// MaxTargetBytes bounds every string a report or the console carries from
// a run, in every format (summary.md, conformance-report.yaml, junit.xml,
// report.html, report.json, the console): a longer one is cut at a rune
// boundary and says so. The strings are the target's as much as the
// harness's (failure messages quote what the target sent), so a target
// cannot make a report grow with what it sends (issue 28 N8).
const MaxTargetBytes = 64 << 10

// Clean is s on one line and safe for any report and a terminal: invalid
// UTF-8 becomes U+FFFD; a line break is written \n, a carriage return \r,
// a tab \t; every other control, format (bidi overrides such as U+202E,
// zero-width marks), line or paragraph separator character and the
// noncharacters U+FFFE and U+FFFF are written \uXXXX; and s is cut at
// MaxTargetBytes. For names, versions and other one-line values a target
// supplies (issue 28 N5–N7: escapes, YAML that PyYAML rejects, a
// forged verdict line).
func Clean(s string) string { return sanitise(s, true) }

// CleanText is Clean for multi-line text (failure messages, transcripts):
// line breaks and tabs are kept, everything else as Clean.
func CleanText(s string) string { return sanitise(s, false) }

// MarkdownText is s as Markdown text on one line, for summary.md (a CI job
// summary renders it): Clean, then each character to which Markdown or its
// inline HTML gives a meaning (` * _ ~ [ ] < > | &, and \ before
// punctuation) escaped with a backslash, so that a target's string is shown
// as it is, not rendered: no HTML, no link or image, no emphasis (a bold
// "Overall: **success**"), no table cell boundary. Plain names and
// versions ("codemode-reference 0.3.1") are unchanged. The escapes come
// after the cut: like HTML's and XML's, they are the format's own.
func MarkdownText(s string) string {
	s = Clean(s)
	if !strings.ContainsAny(s, markdownSpecial) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		// A backslash escapes only ASCII punctuation: Clean's own \u001b
		// and \n stay as they are.
		if c == '\\' && (i+1 == len(s) || strings.IndexByte(asciiPunct, s[i+1]) >= 0) || c != '\\' && strings.IndexByte(markdownSpecial, c) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// markdownSpecial is what MarkdownText escapes; asciiPunct is what a
// CommonMark backslash escapes.
const (
	markdownSpecial = "\\`*_~[]<>|&"
	asciiPunct      = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
)

// unsafeRune reports whether r is escaped by Clean and CleanText: C0 and C1
// controls and DEL (Cc), format characters (Cf: the bidi embeddings,
// overrides and isolates, U+200B–U+200F, U+FEFF), U+2028 and U+2029, and
// U+FFFE/U+FFFF, which YAML 1.1 readers such as PyYAML refuse.
func unsafeRune(r rune) bool {
	if r >= 0x20 && r < 0x7f {
		return false
	}
	return r == 0xfffe || r == 0xffff || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
}

func sanitise(s string, oneLine bool) string {
	if clean(s, oneLine) || alreadyCut(s, oneLine) {
		return s
	}
	total := len(s)
	if len(s) > MaxTargetBytes { // bounds the work: escaping at most multiplies by six
		s = s[:MaxTargetBytes]
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n' && !oneLine, r == '\t' && !oneLine:
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	out := b.String()
	if len(out) <= MaxTargetBytes && total <= MaxTargetBytes {
		return out
	}
	cut := min(len(out), MaxTargetBytes)
	for cut > 0 && cut < len(out) && !utf8.RuneStart(out[cut]) {
		cut--
	}
	return out[:cut] + fmt.Sprintf("… (cut at %d bytes: %d bytes were sent)", MaxTargetBytes, total)
}

// cutMarker is the end sanitise gives a string it cut.
var cutMarker = regexp.MustCompile(`^… \(cut at [0-9]+ bytes: [0-9]+ bytes were sent\)$`)

// alreadyCut reports whether s is what sanitise returned for a string it
// cut: clean text of at most MaxTargetBytes, then the cut marker. Cleaning
// it again leaves it as it is, so that a report read back and judged again
// (codemode-conformance rejudge) carries the same text; the bound stays
// MaxTargetBytes plus the marker.
func alreadyCut(s string, oneLine bool) bool {
	i := strings.LastIndex(s, "… (cut at ")
	return i >= 0 && i <= MaxTargetBytes && cutMarker.MatchString(s[i:]) && clean(s[:i], oneLine)
}

// clean reports whether s needs no change: valid UTF-8, within
// MaxTargetBytes, with no rune that sanitise escapes.
func clean(s string, oneLine bool) bool {
	if len(s) > MaxTargetBytes {
		return false
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return false
		}
		if unsafeRune(r) && (oneLine || (r != '\n' && r != '\t')) {
			return false
		}
		i += size
	}
	return true
}

// SanitiseReport returns r with every string that can carry what a target
// sent passed through CleanText: each spec's as SanitiseSpec, and the
// suite's special failure reasons. Every report is written from its result
// (conformance.Outcome), so none carries a raw target string.
func SanitiseReport(r types.Report) types.Report {
	r.SpecialSuiteFailureReasons = cleanAll(r.SpecialSuiteFailureReasons)
	specs := make(types.SpecReports, len(r.SpecReports))
	for i, s := range r.SpecReports {
		specs[i] = SanitiseSpec(s)
	}
	r.SpecReports = specs
	return r
}

// SanitiseSpec returns s with its failures (message, forwarded panic,
// progress report, additional failures), captured output, spec events and
// report entries (evidence: guest code, transcripts, results) cleaned by
// CleanText. A report entry keeps its JSON structure: each string in it is
// cleaned. s is not changed: Ginkgo shares its slices.
func SanitiseSpec(s types.SpecReport) types.SpecReport {
	s.Failure = cleanFailure(s.Failure)
	if len(s.AdditionalFailures) > 0 {
		af := make([]types.AdditionalFailure, len(s.AdditionalFailures))
		for i, f := range s.AdditionalFailures {
			af[i] = types.AdditionalFailure{State: f.State, Failure: cleanFailure(f.Failure)}
		}
		s.AdditionalFailures = af
	}
	s.CapturedGinkgoWriterOutput = CleanText(s.CapturedGinkgoWriterOutput)
	s.CapturedStdOutErr = CleanText(s.CapturedStdOutErr)
	if len(s.SpecEvents) > 0 {
		ev := make(types.SpecEvents, len(s.SpecEvents))
		for i, e := range s.SpecEvents {
			e.Message = CleanText(e.Message)
			ev[i] = e
		}
		s.SpecEvents = ev
	}
	if len(s.ProgressReports) > 0 {
		pr := make([]types.ProgressReport, len(s.ProgressReports))
		for i, p := range s.ProgressReports {
			pr[i] = cleanProgress(p)
		}
		s.ProgressReports = pr
	}
	if len(s.ReportEntries) > 0 {
		es := make(types.ReportEntries, len(s.ReportEntries))
		for i, e := range s.ReportEntries {
			e.Value = cleanEntry(e.Value)
			es[i] = e
		}
		s.ReportEntries = es
	}
	return s
}

func cleanFailure(f types.Failure) types.Failure {
	f.Message = CleanText(f.Message)
	f.ForwardedPanic = CleanText(f.ForwardedPanic)
	f.ProgressReport = cleanProgress(f.ProgressReport)
	if f.AdditionalFailure != nil {
		a := types.AdditionalFailure{State: f.AdditionalFailure.State, Failure: cleanFailure(f.AdditionalFailure.Failure)}
		f.AdditionalFailure = &a
	}
	return f
}

func cleanProgress(p types.ProgressReport) types.ProgressReport {
	p.Message = CleanText(p.Message)
	p.CapturedGinkgoWriterOutput = CleanText(p.CapturedGinkgoWriterOutput)
	p.AdditionalReports = cleanAll(p.AdditionalReports)
	return p
}

func cleanAll(xs []string) []string {
	if xs == nil {
		return nil
	}
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = CleanText(x)
	}
	return out
}

// cleanEntry rebuilds a report entry's value from its JSON with every string
// in it cleaned (numbers kept exact), and its representation cleaned. A value
// that is not JSON becomes its cleaned representation.
func cleanEntry(v types.ReportEntryValue) types.ReportEntryValue {
	js := v.AsJSON
	if raw := v.GetRawValue(); raw != nil {
		if b, err := json.Marshal(raw); err == nil {
			js = string(b)
		}
	}
	rep := CleanText(v.String())
	var x any
	d := json.NewDecoder(strings.NewReader(js))
	d.UseNumber()
	if js == "" || d.Decode(&x) != nil || x == nil {
		x = rep
	} else {
		x = cleanJSON(x)
	}
	out := types.WrapEntryValue(x)
	out.Representation = rep
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(x) == nil {
		out.AsJSON = strings.TrimSuffix(buf.String(), "\n")
	}
	return out
}

func cleanJSON(x any) any {
	switch v := x.(type) {
	case string:
		return CleanText(v)
	case []any:
		for i := range v {
			v[i] = cleanJSON(v[i])
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[Clean(k)] = cleanJSON(e)
		}
		return out
	}
	return x
}
