package bench

import (
	"context"
	"flag"
	"fmt"
	"github.com/codemode-conformance/codemode/internal/subcmd"
	"io"
	"strings"
)

// Command is `codemode-conformance bench` (args after "bench"): it runs the
// bench, prints progress to stderr and the table to stdout, writes --out
// and returns the exit status: 0 when every cell was correct on every
// target, 1 when any was not (or a target could not be connected), 2 on a
// usage error.
func Command(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var targets []string
	var cells, out string
	var rounds, warmup int
	var memLimit int64
	fs.Func("target", "target to compare (repeatable, at least one; ratios are to the first): builtin, exec:<command line>, tcp:<host:port>, container:<image>, openclaw:<version>, fake:<variant> or a registered name, as for run",
		func(v string) error { targets = append(targets, v); return nil })
	fs.IntVar(&rounds, "rounds", 3, "timed rounds, interleaved across targets")
	fs.IntVar(&warmup, "warmup", 1, "untimed (but checked) executions of each cell per target before the rounds (not for the cells timed once per round)")
	fs.StringVar(&cells, "cells", "", "comma-separated cells to run (default: all; see Cells above)")
	fs.StringVar(&out, "out", "bench.json", "where to write the JSON report (empty: do not write)")
	fs.Int64Var(&memLimit, "memory-limit-bytes", 0, "set tools.codeMode memoryLimitBytes in every cell (default: the target's own default, 64 MiB in the contract)")
	fs.Usage = func() { benchUsage(fs.Output(), fs) }
	if code, done := subcmd.Parse(fs, args, stdout); done {
		return code
	}
	usageErr := func(f string, a ...any) int {
		fmt.Fprintf(stderr, "bench: "+f+" (see codemode-conformance bench -h)\n", a...)
		return 2
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q", fs.Arg(0))
	}
	if len(targets) == 0 {
		return usageErr("no --target given")
	}
	if rounds < 1 || warmup < 0 {
		return usageErr("--rounds must be at least 1 and --warmup at least 0")
	}
	if memLimit < 0 {
		return usageErr("--memory-limit-bytes must not be negative")
	}
	var names []string
	for _, n := range strings.Split(cells, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	selected, err := SelectCells(names)
	if err != nil {
		return usageErr("%v", err)
	}
	rep := Run(ctx, Options{Targets: targets, Cells: selected, Rounds: rounds, Warmup: warmup, MemoryLimitBytes: memLimit, Progress: stderr})
	rep.WriteTable(stdout)
	if out != "" {
		if err := rep.WriteJSON(out); err != nil {
			fmt.Fprintf(stderr, "bench: writing %s: %v\n", out, err)
			return 1
		}
		fmt.Fprintf(stderr, "bench: wrote %s\n", out)
	}
	if !rep.Correct {
		return 1
	}
	return 0
}

func benchUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, `usage: codemode-conformance bench --target A [--target B …] [flags]

Runs the standard cells through each target over the driver protocol and
compares them side by side. Each round runs every cell on every target in
turn (A, B, then B, A, …) because shared machines are noisy; a cell's
number per target is the median of its per-round medians, and the ratio is
to the first target. Each run gets tools.codeMode {"enabled":true,
"timeoutMs":%d} (slow-tool-200ms: 700, so that the reference suspends;
plus memoryLimitBytes with --memory-limit-bytes) and the fake echo and
slow tools, whose catalog ids come from the target's own catalog. A cell
is executed with exec, then wait while it is waiting.

Every result is checked: status completed, the expected value, the expected
number of nested tool calls. A failure or wrong value is reported (FAIL and
its code, e.g. FAIL memory_limit_exceeded) and never timed, and the command
exits 1. Exit status: 0 every cell correct on every target, 1 otherwise, 2
usage error. Progress goes to stderr, the table to stdout.

Cells:
`, TimeoutMs)
	for _, c := range StandardCells() {
		fmt.Fprintf(w, "  %-20s %s (%s, %d per round", c.Name, c.Description, c.Unit(), c.Iterations)
		if c.Runs > 1 {
			fmt.Fprintf(w, " in each of %d runs, one sample", c.Runs)
		}
		fmt.Fprintln(w, ")")
	}
	fmt.Fprintf(w, `
Example:
  codemode-conformance bench --target builtin --target "exec:./bin/codemode-reference serve --stdio" --out bench.json

Flags:
`)
	fs.PrintDefaults()
}
