package main

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/onsi/ginkgo/v2/types"
)

// console is stdout as shared by Ginkgo's default reporter
// (formatter.ColorableStdOut) and the harness's own lines. It remembers
// whether the last byte written ended a line, so that each harness line
// starts on its own line (Ginkgo's succinct header "… - 70/71 specs " and
// its closing " SUCCESS! …" end without a newline).
//
// Unless verbose, the console keeps stdout to one progress line per spec
// (plus a one-line reason): it drops what Ginkgo writes about a spec after
// the harness printed that spec's line (the succinct "•" of a pass, the
// whole failure dump with the transcript of a failure), everything Ginkgo
// writes after the harness's summary (its list of failures, its spec counts
// and its SUCCESS!/FAIL! banner, which count an xfail as failed and would
// contradict the verdict: the harness's closing line is the last line and
// the only coloured verdict) and, once a signal stopped the run, Ginkgo's
// interrupt report (a goroutine dump). Ginkgo's header and a suite-level
// failure (before the first spec) pass through. The full failure and
// transcript go to report.html, report.json and junit.xml.
type console struct {
	mu      sync.Mutex
	w       io.Writer
	bol     bool // at the beginning of a line
	verbose bool
	color   bool // the closing verdict is coloured (a terminal, no NO_COLOR or CI)
	phase   phase
	// interrupted: Ginkgo began its interrupt report (see Write); held:
	// delimiter writes not yet let through.
	interrupted bool
	held        []byte
}

// phase is where Ginkgo's output stands, for a non-verbose console.
type phase int

const (
	shown    phase = iota // before the first spec and when a spec starts: Ginkgo's writes pass
	specDone              // a spec's progress line is out: Ginkgo's report of that spec is dropped
	closing               // the summary is out: whatever Ginkgo writes after it is dropped
)

// reasonMaxRunes is where a reason line is cut.
const reasonMaxRunes = 200

func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.verbose && (c.phase != shown || c.interrupted || signaled() != nil) {
		return len(p), nil
	}
	if !c.verbose {
		// Ginkgo handles the signal in a goroutine of its own, and may print
		// its interrupt report (delimiter, "Interrupted by User", goroutine
		// dump) before watchSignals records the signal: the report's first
		// lines give it away. Delimiter writes are held until the next write
		// shows which it is.
		if delimiterOnly(p) {
			c.held = append(c.held, p...)
			return len(p), nil
		}
		if bytes.Contains(p, []byte("Interrupted by User")) {
			c.interrupted, c.held = true, nil
			return len(p), nil
		}
	}
	c.flushHeld()
	if _, err := c.write(termSafe(p, c.color)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// flushHeld writes the delimiter writes Write held back.
func (c *console) flushHeld() {
	if len(c.held) > 0 {
		h := c.held
		c.held = nil
		c.write(h)
	}
}

// ansi matches the colour codes of Ginkgo's output.
var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// delimiterOnly reports whether p is no more than (part of) Ginkgo's
// delimiter line: dashes, blanks and colour codes.
func delimiterOnly(p []byte) bool {
	return len(bytes.Trim(ansi.ReplaceAll(p, nil), "- \n")) == 0
}

// termSafe is what Ginkgo writes, with the target's strings it quotes (a
// suite failure before the first spec, everything under --verbose) made
// safe for a terminal by report.CleanText (issue 28 N5). Only Ginkgo's own
// colour sequences (ansi) are kept, and only when the console is in colour.
func termSafe(p []byte, color bool) []byte {
	s := string(p)
	if !color {
		return []byte(report.CleanText(s))
	}
	var b strings.Builder
	last := 0
	for _, m := range ansi.FindAllStringIndex(s, -1) {
		b.WriteString(report.CleanText(s[last:m[0]]))
		b.WriteString(s[m[0]:m[1]])
		last = m[1]
	}
	b.WriteString(report.CleanText(s[last:]))
	return []byte(b.String())
}

func (c *console) write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, err := c.w.Write(p)
	if n > 0 {
		c.bol = p[n-1] == '\n'
	}
	return n, err
}

// Print writes s, starting on a new line if the cursor is not at the start
// of one.
func (c *console) Print(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.print(s)
}

func (c *console) print(s string) {
	c.flushHeld()
	if !c.bol && s != "" && s[0] != '\n' {
		c.write([]byte("\n"))
	}
	c.write([]byte(s))
}

// SpecStarts lets Ginkgo's output through again (ReportBeforeEach).
func (c *console) SpecStarts() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.phase = shown
}

// SpecDone prints a spec's progress line (if line is not empty) and drops
// what Ginkgo writes about the spec after it (ReportAfterEach runs just
// before Ginkgo reports the spec).
func (c *console) SpecDone(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.print(line)
	c.phase = specDone
}

// Summary prints the harness's summary; Ginkgo's closing output after it is
// dropped (the summary counts requirements and specs by verdict).
func (c *console) Summary(text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.print(text)
	c.phase = closing
}

// progressLine is a spec's line on the console: its number, verdict, text
// and run time, and for anything but a plain pass one indented line saying
// why (cut to about 200 characters; the full failure is in report.html).
// baselineFile names the --expected-failures file.
func progressLine(n int64, r types.SpecReport, v report.SpecVerdict, baselineFile string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%3d] %-5s %s (%s)\n", n, strings.ToUpper(string(v.Verdict)), r.LeafNodeText, r.RunTime.Round(time.Millisecond))
	// reason prints why: lead, then the failure message msg on what is left
	// of the line.
	reason := func(lead, msg string) {
		n := utf8.RuneCountInString(lead)
		line := report.Line(lead+reasonLine(msg, r.LeafNodeText, max(reasonMaxRunes-n, 40)), reasonMaxRunes)
		fmt.Fprintf(&b, "        %s (see report.html)\n", line)
	}
	switch v.Verdict {
	case report.Pass:
		if v.Flaky {
			reason(fmt.Sprintf("passed this time; listed as flaky in %s, pass or fail accepted (%s)", baselineFile, v.Expected), "")
		} else if v.Expected != "" {
			reason(fmt.Sprintf("passed, but %s is listed in %s: an xpass unless another of its specs fails", v.Requirement, baselineFile), "")
		}
	case report.Skip:
		reason("skipped: ", r.Failure.Message)
	case report.Blocked:
		// The message starts "blocked by CM-X: ": the requirement that owns
		// the failed precondition, whose own specs judge the fault.
		reason(fmt.Sprintf("not judged (%s): ", v.Requirement), r.Failure.Message)
	case report.XPass:
		reason(fmt.Sprintf("passed, but listed in %s (%s): remove the stale entry", baselineFile, v.Expected), "")
	case report.XFail:
		lead := "expected failure"
		if v.Flaky {
			lead = "expected failure, listed as flaky"
		}
		reason(fmt.Sprintf("%s (%s): ", lead, v.Expected), r.Failure.Message)
	case report.Error:
		why := v.HarnessError
		if why == "" {
			why = r.Failure.Message
		}
		reason(fmt.Sprintf("error, not a failure of %s: ", v.Requirement), why)
	default:
		reason("", r.Failure.Message)
	}
	if v.BaselineError != "" {
		fmt.Fprintf(&b, "        baseline error: %s lists this spec, but %s\n", baselineFile, report.Line(v.BaselineError, reasonMaxRunes))
	}
	return b.String()
}

// requirementXPassLines are the console lines of the xpass requirements
// (listed in the baseline baselineFile, passed) not in shown: those listed
// by ID, whose specs' progress lines cannot say xpass (another spec of the
// requirement may still fail), so a line per requirement follows the last
// spec. shown holds the requirements that had an XPASS progress line.
func requirementXPassLines(reqs []report.RequirementLine, shown map[string]bool, baselineFile string) string {
	var b strings.Builder
	for _, r := range reqs {
		if r.Verdict != report.XPass || shown[r.ID] {
			continue
		}
		fmt.Fprintf(&b, "XPASS %s (the requirement: %d %s, all passed)\n", r.ID, len(r.Specs), plural(len(r.Specs), "spec", "specs"))
		fmt.Fprintf(&b, "        %s\n", report.Line(fmt.Sprintf("listed in %s (%s): remove the stale entry", baselineFile, r.Expected), reasonMaxRunes))
	}
	return b.String()
}

// Verdict prints the harness's closing line, the run's last: coloured by
// the overall verdict on a colour console (green success, yellow partial,
// red failure), plain otherwise.
func (c *console) Verdict(line string, overall report.Overall) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.color {
		code := map[report.Overall]string{report.Success: "32", report.Partial: "33"}[overall]
		if code == "" {
			code = "31"
		}
		line = "\x1b[1;" + code + "m" + strings.TrimSuffix(line, "\n") + "\x1b[0m\n"
	}
	c.print(line)
}
