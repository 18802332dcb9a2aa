package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/codemode-conformance/codemode/internal/atomicfile"
	"github.com/codemode-conformance/codemode/internal/subcmd"

	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/goccy/go-yaml"
)

// baselineReasonTODO is the reason placeholder of a new entry.
const baselineReasonTODO = "TODO: why this spec fails (cite the requirement's text and the seed section)"

// baselineClasses are the values of an entry's class (report.Class): a
// deviation from the seed pages, a project decision the target does not
// follow, or untriaged (the cause is not established yet). What a target cannot drive is declared notDrivable in initialize
// and skipped, never an expected failure.
var baselineClasses = []string{string(report.ClassDeviation), string(report.ClassDecision), string(report.ClassUntriaged)}

// baselineFile is an expected-failures file as baseline reads and writes
// it: report.Baseline's entries plus class (read leniently, so that a file
// in either shape can be updated).
type baselineFile struct {
	Requirements []baselineReq  `yaml:"requirements"`
	Specs        []baselineSpec `yaml:"specs"`
}

type baselineReq struct {
	ID     string `yaml:"id"`
	Reason string `yaml:"reason,omitempty"`
	Class  string `yaml:"class,omitempty"`
	Note   string `yaml:"note,omitempty"`
}

type baselineSpec struct {
	Name   string `yaml:"name"`
	Reason string `yaml:"reason,omitempty"`
	Class  string `yaml:"class,omitempty"`
	Note   string `yaml:"note,omitempty"`
	Flaky  bool   `yaml:"flaky,omitempty"`
	req    string // the requirement, for the comment above the entry
}

func (e *baselineReq) UnmarshalYAML(unmarshal func(any) error) error {
	type plain baselineReq
	if unmarshal(&e.ID) == nil {
		return nil
	}
	return unmarshal((*plain)(e))
}

func (e *baselineSpec) UnmarshalYAML(unmarshal func(any) error) error {
	type plain baselineSpec
	if unmarshal(&e.Name) == nil {
		return nil
	}
	return unmarshal((*plain)(e))
}

// baselineCommand writes an expected-failures file from a run's
// conformance-report.yaml (RESULTS_DIR): one specs: entry per failing spec
// (verdict fail or xfail), with its requirement as a comment, a reason
// placeholder and class deviation (change it to decision where it applies). With --update FILE it rewrites FILE in
// the manner of WPT's update-expectations: an entry whose spec (or
// requirement) now passes, or is skipped or blocked, is dropped, an entry still failing or not run
// keeps its reason and class, and new failures are added. Errors (a crash)
// are never written: they are not expected failures. Output goes to --out
// (default: the --update file, else stdout). Exit 0, 1 when a file cannot be
// read or written, 2 on usage.
func baselineCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("baseline", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "the results directory of a run (its conformance-report.yaml)")
	update := fs.String("update", "", "an existing expected-failures file to update: drops entries that now pass, keeps reasons")
	out := fs.String("out", "", "where to write (default: the --update file, else stdout)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: codemode-conformance baseline --from RESULTS_DIR [--update expected-failures.yaml] [--out FILE]\n\nWrites an expected-failures file from a run: one entry per failing spec, with its requirement,\na reason to fill in and its class (deviation | decision | untriaged). --update drops the\nentries that now pass and keeps the reasons of the others.\nExit status: 0 written, 1 a file cannot be read or written, 2 usage.\n\nFlags:")
		fs.PrintDefaults()
	}
	if code, done := subcmd.Parse(fs, args, stdout); done {
		return code
	}
	if *from == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "baseline takes --from RESULTS_DIR and no arguments (see baseline -h)")
		return 2
	}
	data, err := os.ReadFile(filepath.Join(*from, "conformance-report.yaml"))
	if err != nil {
		fmt.Fprintf(stderr, "baseline: %v (is %s the --results-dir of a run?)\n", err, *from)
		return 1
	}
	var run report.Conformance
	if err := yaml.Unmarshal(data, &run); err != nil {
		fmt.Fprintf(stderr, "baseline: %s/conformance-report.yaml: %v\n", *from, err)
		return 1
	}
	var old baselineFile
	var header []byte
	if *update != "" {
		b, err := os.ReadFile(*update)
		if err == nil {
			err = yaml.Unmarshal(b, &old)
		}
		if err != nil {
			fmt.Fprintf(stderr, "baseline: --update %s: %v\n", *update, err)
			return 1
		}
		header = leadingComment(b)
	}
	next, dropped, gone := updateBaseline(old, run)
	text := renderBaseline(next, run, *from, header)
	dst := *out
	if dst == "" {
		dst = *update
	}
	if dst == "" {
		_, _ = stdout.Write(text)
		return 0
	}
	if err := atomicfile.Write(dst, text, 0o644); err != nil { // a failed write leaves the old file
		fmt.Fprintln(stderr, "baseline:", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s: %d requirement and %d spec entries (%d dropped: now passing; %d dropped: no such spec)\n", dst, len(next.Requirements), len(next.Specs), dropped, len(gone))
	for _, g := range gone {
		// The reason is the user's to carry over: the renamed spec may
		// fail for another reason now.
		fmt.Fprintf(stdout, "  no spec of this build is named %q (renamed or removed; its requirement ran): carry its reason over by hand if it still applies: reason %q, class %q\n", report.Clean(g.Name), report.Clean(g.Reason), report.Clean(g.Class))
	}
	return 0
}

// leadingComment returns the comment lines (and blank lines) that open an
// expected-failures file, which --update keeps: they hold the file's
// hand-written explanation of its classes.
func leadingComment(b []byte) []byte {
	var out []byte
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if len(t) > 0 && t[0] != '#' {
			break
		}
		out = append(out, line...)
	}
	if len(out) > 0 && out[len(out)-1] != '\n' {
		// A file of comments only, without a final line break: the
		// entries must not continue its last comment line.
		out = append(out, '\n')
	}
	return out
}

// updateBaseline merges a run into old (see baselineCommand) and returns
// the new file, how many entries were dropped because they pass, skip or
// are blocked, and the spec entries dropped because their requirement ran
// and no spec of it has their name any more (a renamed or removed spec: an
// entry that can never match again). That last needs a run of every spec
// its requirements have: after a --label-filter, --fail-fast or a signal
// (run.Selection: a label filter, or fewer specs ran than were selected)
// such an entry is kept.
func updateBaseline(old baselineFile, run report.Conformance) (baselineFile, int, []baselineSpec) {
	reqVerdict := map[string]report.Verdict{}
	specVerdict := map[string]report.Verdict{}
	specReq := map[string]string{}
	var failing []string // spec names in report order
	for _, r := range run.Requirements {
		reqVerdict[r.ID] = r.Verdict
		for _, s := range r.Specs {
			specVerdict[s.Name] = s.Verdict
			specReq[s.Name] = r.ID
			if s.Verdict == report.Fail || s.Verdict == report.XFail {
				failing = append(failing, s.Name)
			}
		}
	}
	// Only a run that ran every spec of each requirement it ran can say a
	// spec is gone: a --label-filter selects specs, not requirements (the
	// specs of CM-LIM-03 are in suite:limits and suite:security), and a
	// run cut short (--fail-fast, a signal) leaves selected specs unrun.
	everySpec := run.Selection.LabelFilter == "" && run.Selection.Specs.Ran == run.Selection.Specs.Selected
	var next baselineFile
	dropped := 0
	for _, e := range old.Requirements {
		if v, ran := reqVerdict[e.ID]; ran && stale(v) {
			dropped++
			continue
		}
		next.Requirements = append(next.Requirements, e)
	}
	listed := map[string]bool{}
	var gone []baselineSpec
	for _, e := range old.Specs {
		v, ran := specVerdict[e.Name]
		if ran && (stale(v) && !(e.Flaky && (v == report.Pass || v == report.XPass))) {
			dropped++
			continue
		}
		if id, _, _ := strings.Cut(e.Name, " "); !ran && everySpec {
			if _, reqRan := reqVerdict[id]; reqRan {
				gone = append(gone, e)
				continue
			}
		}
		e.req = specReq[e.Name]
		listed[e.Name] = true
		next.Specs = append(next.Specs, e)
	}
	for _, name := range failing {
		if !listed[name] {
			next.Specs = append(next.Specs, baselineSpec{Name: name, Reason: baselineReasonTODO, Class: baselineClasses[0], req: specReq[name]})
		}
	}
	return next, dropped, gone
}

// stale reports whether an entry whose spec or requirement got verdict v
// no longer belongs in the baseline: it passed, or it was skipped or
// blocked (a baseline error, see report.Baseline). A fail, an xfail and an
// error (a crash says nothing about the entry) keep it.
func stale(v report.Verdict) bool {
	return v == report.Pass || v == report.XPass || v == report.Skip || v == report.Blocked
}

// renderBaseline writes f as YAML with a header (header, the --update
// file's own opening comment, when it has one) and each spec's
// requirement as a comment above its entry.
func renderBaseline(f baselineFile, run report.Conformance, from string, header []byte) []byte {
	var b bytes.Buffer
	if len(bytes.TrimSpace(header)) > 0 {
		b.Write(header)
		return renderEntries(&b, f)
	}
	fmt.Fprintf(&b, "# Expected failures of %s %s (target %s), written by codemode-conformance baseline --from %s.\n",
		report.Clean(run.Implementation.Name), report.Clean(run.Implementation.Version), report.Clean(run.Target), from) // one comment line, whatever the report holds
	fmt.Fprintf(&b, "# Fill in each reason; class is one of %v.\n", baselineClasses)
	return renderEntries(&b, f)
}

// renderEntries appends f's requirements: and specs: lists to b.
func renderEntries(b *bytes.Buffer, f baselineFile) []byte {
	b.WriteString("requirements:")
	if len(f.Requirements) == 0 {
		b.WriteString(" []")
	}
	b.WriteString("\n")
	for _, e := range f.Requirements {
		fmt.Fprintf(b, "  - id: %s\n", e.ID)
		writeEntryFields(b, e.Reason, e.Class, e.Note, false)
	}
	b.WriteString("specs:")
	if len(f.Specs) == 0 {
		b.WriteString(" []")
	}
	b.WriteString("\n")
	for _, e := range f.Specs {
		if e.req != "" {
			fmt.Fprintf(b, "  # %s\n", e.req)
		}
		fmt.Fprintf(b, "  - name: %s\n", strconv.Quote(e.Name))
		writeEntryFields(b, e.Reason, e.Class, e.Note, e.Flaky)
	}
	return b.Bytes()
}

func writeEntryFields(b *bytes.Buffer, reason, class, note string, flaky bool) {
	if reason != "" {
		fmt.Fprintf(b, "    reason: %s\n", strconv.Quote(reason))
	}
	if class != "" {
		fmt.Fprintf(b, "    class: %s\n", class)
	}
	if note != "" {
		fmt.Fprintf(b, "    note: %s\n", strconv.Quote(note))
	}
	if flaky {
		b.WriteString("    flaky: true\n")
	}
}
