package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/codemode-conformance/codemode/internal/subcmd"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/suites/security/corpus"
	"github.com/codemode-conformance/codemode/targets"
	"github.com/codemode-conformance/codemode/tools/report"
)

// caseUsage is the help of the case command.
func caseUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, `usage: codemode-conformance case FILE [--target T] [--profile P]

Runs one hostile-case corpus file (suites/security/cases/*.js: a guest cell
after a /*--- … ---*/ front-matter block naming its requirements, fault
class, fixture tools, limits and expected outcome) against a target, as the
security suite does: the cell runs in a fresh run (waiting results are
followed with wait), then a trivial cell runs in another fresh run, and
runtime.stats' live VMs, stored snapshots and suspended runs must return to
their level before the case. --profile judges the target under that profile
as run --profile does: builtin serves it, and a target declaring another
profile, or features outside it, is a target error.

Prints every exec/wait result of the cell as raw JSON, one per line (the
last is the final result), then the verdict: "PASS case FILE" or
"FAIL case FILE: why" (expected vs actual).

Exit status: 0 PASS, 1 FAIL, a target that did not answer or a target error,
2 usage error (bad flags, no or several files, an unreadable file, a case
whose front matter does not load, an unknown target or profile).

Targets:
%s
Flags:
`, targets.Usage())
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// caseCommand runs `codemode-conformance case FILE --target T` and returns
// the exit status. Flags may come before or after FILE.
func caseCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("case", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { caseUsage(fs.Output(), fs) }
	def := os.Getenv(framework.TargetEnv)
	if def == "" {
		def = "builtin"
	}
	tgt := fs.String("target", def, "the target (see Targets; also $"+framework.TargetEnv+")")
	prof := fs.String("profile", "", "contract profile to judge the target against: "+strings.Join(spec.ProfileNames(), " or ")+" (without it: the one the target declares, else "+spec.DefaultProfile+"; builtin serves it)")
	var files []string
	for {
		if code, done := subcmd.Parse(fs, args, stdout); done {
			return code
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) != 1 {
		fmt.Fprintf(stderr, "case takes exactly one FILE, got %d (%s); see codemode-conformance case -h\n", len(files), strings.Join(files, " "))
		return 2
	}
	src, err := os.ReadFile(files[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	c, err := corpus.Parse(filepath.Base(files[0]), src)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if err := targets.Check(*tgt); err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if *prof != "" {
		if _, err := spec.LookupProfile(*prof); err != nil {
			fmt.Fprintln(stderr, "--profile: "+err.Error())
			return 2
		}
	}
	// builtin serves the configured profile (framework.RequestedProfile).
	framework.Configure(framework.Config{Target: *tgt, Profile: *prof})
	t, err := framework.Connect(ctx, *tgt)
	if err != nil {
		fmt.Fprintf(stderr, "connecting to %s: %v\n", *tgt, err)
		return 1
	}
	defer t.Close()
	judged, why := framework.ProfileVerdict(*prof, t.Init.Profile, t.Init.Features, "declared", "case")
	if why != "" {
		fmt.Fprintf(stdout, "FAIL case %s: %s\n", c.File, report.Clean(why))
		return 1
	}
	framework.JudgeProfile(judged) // the case's cell is rendered in this profile's guest dialect
	rep, err := corpus.Drive(ctx, t, c)
	for _, raw := range rep.Steps {
		fmt.Fprintln(stdout, report.Clean(string(raw))) // the target's bytes: one line, escaped (issue 28 N5)
	}
	var outside *framework.OutsideUnion
	switch {
	case errors.As(err, &outside):
		// One fault, one requirement: the result's shape is CM-EXEC-05's.
		fmt.Fprintf(stdout, "BLOCKED case %s: %s%s: %v (requirements %v not judged)\n", c.File, evidence.BlockedPrefix, framework.UnionOwner, report.Clean(err.Error()), c.Requirements)
		return 1
	case err != nil:
		fmt.Fprintf(stdout, "FAIL case %s: the target did not answer: %s\n", c.File, report.Clean(err.Error()))
		return 1
	case rep.Mismatch != "":
		fmt.Fprintf(stdout, "FAIL case %s: %s\nrequirements %v, class %s\nexpected: %s\nactual: %s\n", c.File, c.Description,
			c.Requirements, c.Class, c.ExpectFor(judged), report.CleanText(rep.Mismatch)) // a go-cmp diff: its lines kept, each indented
		return 1
	case rep.After != "":
		fmt.Fprintf(stdout, "FAIL case %s: the outcome was met, but %s\n", c.File, report.Clean(rep.After))
		return 1
	}
	fmt.Fprintf(stdout, "PASS case %s: %s (requirements %v, expected %s)\n", c.File, c.Description, c.Requirements, c.ExpectFor(judged))
	return 0
}
