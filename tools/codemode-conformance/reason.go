package main

import (
	"strings"
	"unicode/utf8"

	"github.com/codemode-conformance/codemode/tools/report"
)

// reasonLine puts a failure message on one line of at most max runes for
// the console (report.html keeps it whole). It keeps what a reader acts on:
// the assertion's description, then expected and actual. The evidence a
// failure carries (guest code, the request and its transcript) is left out,
// so is a line that repeats the spec's text; a Gomega BeEmpty on a reason
// string is reduced to that reason. When the lines do not fit, those that
// carry data are cut first, then the longest, each at a word or JSON
// boundary and marked with "…", so that every line keeps its start.
func reasonLine(msg, specText string, max int) string {
	var parts []string
	diffs := map[int]bool{} // parts that are a diff, not data
	evidence := false
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		switch {
		case l == "Expected":
			evidence = false
			// Expected <string>: why / to be empty: the why is the reason.
			if i+2 < len(lines) && strings.TrimSpace(lines[i+2]) == "to be empty" {
				if why, ok := strings.CutPrefix(strings.TrimSpace(lines[i+1]), "<string>: "); ok {
					parts = append(parts, why)
					i += 2
					continue
				}
			}
			// Gomega's matcher message, one part: Expected <int>: 1 to equal <int>: 2.
			parts = append(parts, report.Line(head(strings.Join(lines[i:], " "), 8*max), len(msg)))
			i = len(lines)
			continue
		case l == "guest code:" || strings.HasPrefix(l, "request: ") || strings.HasPrefix(l, "transcript"):
			evidence = true
		case !evidence && strings.HasSuffix(l, "(-want +got):"):
			// A go-cmp diff, one part: its header, the lines it removes
			// (want), then those it adds (got).
			var minus, plus []string
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
				c := strings.TrimLeft(lines[i], " \u00a0\t")
				if c == "" || (c[0] != '-' && c[0] != '+') {
					continue
				}
				c = c[:1] + strings.Join(strings.Fields(strings.TrimLeft(c[1:], " \u00a0\t")), " ")
				if c[0] == '-' {
					minus = append(minus, c)
				} else {
					plus = append(plus, c)
				}
			}
			parts = append(parts, strings.Join(append(append([]string{l}, minus...), plus...), " "))
			diffs[len(parts)-1] = true
			continue
		}
		if evidence || l == "" || (len(parts) == 0 && strings.Contains(specText, l)) {
			continue
		}
		parts = append(parts, report.Line(head(l, 8*max), len(l)))
	}
	return fit(parts, diffs, max)
}

// fit joins parts ("first: second; third") within limit runes. Parts that
// carry data (a JSON value: a result, a transcript line; not diffs) are cut first, down
// to 24 runes; then the longest parts are cut to a common length.
func fit(parts []string, diffs map[int]bool, limit int) string {
	if len(parts) == 0 {
		return ""
	}
	// Linear in the message: no part can show more than limit runes and no
	// more than limit parts fit, so both are bounded before the search (a
	// target's 10 MB value made this quadratic: 83 s at 256 KB, issue 28 N4).
	if len(parts) > limit {
		parts = parts[:limit]
	}
	data := make([]bool, len(parts))
	runes := make([]int, len(parts))
	for i, p := range parts {
		if r := []rune(p); len(r) > limit+1 {
			parts[i] = string(r[:limit+1])
		}
		runes[i] = utf8.RuneCountInString(parts[i])
		data[i] = !diffs[i] && (strings.Contains(parts[i], `{"`) || strings.Contains(parts[i], `["`))
	}
	size := func(cData, c int) int {
		n := 2 * (len(parts) - 1)
		for i := range parts {
			l := min(runes[i], c)
			if data[i] {
				l = min(l, cData)
			}
			n += l
		}
		return n
	}
	c := 0
	for _, r := range runes {
		c = max(c, r)
	}
	cData := c
	for cData > 24 && size(cData, c) > limit {
		cData--
	}
	for c > 8 && size(cData, c) > limit {
		c--
	}
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i == 1:
			b.WriteString(": ")
		case i > 1:
			b.WriteString("; ")
		}
		if data[i] {
			p = cutAt(p, cData)
		}
		b.WriteString(cutAt(p, c))
	}
	return report.Line(b.String(), limit)
}

// cutAt cuts s to at most n runes ("…" included), at the last space or JSON
// separator in its second half if there is one.
func cutAt(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	r = r[:n-1]
	if i := strings.LastIndexAny(string(r), ` ,:;{[`); i >= 0 && len([]rune(string(r)[:i])) > n/2 {
		r = []rune(string(r)[:i+1])
	}
	return strings.TrimRight(string(r), " ") + "…"
}

// head is s cut to at most n bytes at a rune boundary: no more of a line is
// worth normalising than the console can show.
func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
