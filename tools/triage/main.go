// Command triage writes the "Current verdicts" table of a report folder's
// TRIAGE.md (reports/openclaw-*) from what the folder holds, and checks the
// triage (issue 24 items 5 and 6):
//
//	go run ./tools/triage --report reports/openclaw-2026.7.35 [--report DIR ...] [--check] [--stdout]
//
// Inputs, per folder: conformance-report.yaml (the verdicts, the run's
// target, profile, selection and counts), junit.xml (start and duration),
// expected-failures.yaml (each entry's class and reason), the requirement's
// seed citation (spec/requirements.yaml source:) and the hand-check scripts
// under handcheck/. The table has one row per requirement whose verdict is
// not pass: requirement, verdict, class, finding, seed and evidence (the
// first failing spec and its failing value; for a failing security or
// limits row, its hand check). Every string is Markdown-escaped
// (report.MarkdownText): the failure messages quote the target.
//
// Only the block between BeginMarker and EndMarker is rewritten; the
// hand-written text around it is kept byte for byte.
//
// Checks (each failure is printed as "DIR: CM-X: why"):
//   - a failing (fail, xfail) security or limits row (area SEC or LIM)
//     names a hand-check script that exists under a handcheck/ folder: its
//     baseline entry's "hand check: <script> [args]" clause, or a script in
//     the folder's handcheck/ (or one the baseline names elsewhere) with a
//     case whose name starts with the requirement ID;
//   - a not-drivable row's reason names the OpenClaw function that is
//     missing or unexported (a lowerCamelCase identifier or a call);
//   - a failure (fail) has a baseline entry, and an xpass has none;
//   - baseline hygiene: no entry lists a requirement or spec whose verdict
//     is skip or blocked, or a not-drivable spec (directly or as a spec of
//     a listed requirement).
//
// --check writes nothing and also fails when TRIAGE.md's block differs
// from the one generated now (stale); --stdout prints the block instead of
// writing it. Exit status: 0 when every check passes, 1 when one fails
// (the table is still written without --check), 2 on a usage or I/O error.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/codemode-conformance/codemode/internal/atomicfile"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the command: args without the program name; it returns the exit
// status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("triage", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var reports []string
	fs.Func("report", "report folder holding conformance-report.yaml and TRIAGE.md (repeatable)", func(s string) error {
		reports = append(reports, s)
		return nil
	})
	check := fs.Bool("check", false, "write nothing; fail when a check fails or TRIAGE.md's generated block is stale")
	toStdout := fs.Bool("stdout", false, "print the generated block instead of writing TRIAGE.md")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if len(reports) == 0 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: triage --report DIR [--report DIR ...] [--check] [--stdout]")
		return 2
	}
	status := 0
	for _, dir := range reports {
		problems, err := one(dir, *check, *toStdout, stdout)
		if err != nil {
			fmt.Fprintf(stderr, "triage: %s: %v\n", dir, err)
			return 2
		}
		for _, p := range problems {
			fmt.Fprintf(stderr, "%s: %s\n", dir, p)
		}
		if len(problems) > 0 {
			status = 1
		}
	}
	return status
}

// one builds dir's table, writes or prints it, and returns the failed
// checks.
func one(dir string, check, toStdout bool, stdout io.Writer) ([]string, error) {
	f, err := Load(dir)
	if err != nil {
		return nil, err
	}
	t := Build(f)
	block := t.Markdown()
	if toStdout {
		fmt.Fprintln(stdout, block)
		return t.Problems, nil
	}
	path := filepath.Join(dir, "TRIAGE.md")
	old, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := Splice(string(old), block)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if check {
		if doc != string(old) {
			t.Problems = append(t.Problems, "TRIAGE.md's generated table is stale: rerun go run ./tools/triage --report "+dir)
		}
		return t.Problems, nil
	}
	if doc != string(old) {
		if err := atomicfile.Write(path, []byte(doc), 0o644); err != nil { // a failed write leaves TRIAGE.md as it was
			return nil, err
		}
	}
	return t.Problems, nil
}
