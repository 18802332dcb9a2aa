package bench

import (
	"context"
	"flag"
	"fmt"
	"github.com/codemode-conformance/codemode/internal/subcmd"
	"io"
	"strconv"
	"strings"
)

// LoadCommand is `codemode-conformance bench-load` (args after
// "bench-load"): it runs LoadRun against the reference binary, prints
// progress to stderr and the tables to stdout, writes --out and returns
// the exit status: 0 (the figures are measurements, never a verdict), 1
// when the report could not be written, 2 on a usage error.
func LoadCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench-load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o LoadOptions
	var conc, out string
	fs.StringVar(&o.Reference, "reference", "./bin/codemode-reference", "the codemode-reference binary (make build)")
	fs.StringVar(&conc, "concurrency", "1,16,64,256", "comma-separated numbers of concurrent runs of the throughput points")
	fs.DurationVar(&o.Duration, "duration", 0, "how long each throughput point runs (default 10s)")
	fs.IntVar(&o.Conns, "conns", 8, "TCP connections of the tcp points and of the suspended-run figure")
	fs.IntVar(&o.Suspended, "suspended", 64, "runs suspended at once for the RSS-per-run figure")
	fs.IntVar(&o.Busy, "busy", 256, "spinning cells behind which runtime.stats is timed")
	fs.StringVar(&out, "out", "bench-load.json", "where to write the JSON report (empty: do not write)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: codemode-conformance bench-load [flags]

Load and capacity of the reference over the driver protocol: trivial cells
(return 1+1) per second and their p50/p99 latency at each concurrency, over
stdio (one connection) and over --conns TCP connections to one serve
--listen process (with its peak RSS); the resident memory per suspended run;
and runtime.stats latency on one stdio connection behind --busy cells that
spin in while(true){}. Measurements, not tests: the exit status is 0
whatever the numbers are.

Flags:
`)
		fs.PrintDefaults()
	}
	if code, done := subcmd.Parse(fs, args, stdout); done {
		return code
	}
	for _, s := range strings.Split(conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fmt.Fprintf(stderr, "bench-load: --concurrency %q: want positive integers\n", conc)
			return 2
		}
		o.Concurrency = append(o.Concurrency, n)
	}
	if fs.NArg() > 0 || o.Conns < 1 || o.Suspended < 1 || o.Busy < 1 {
		fmt.Fprintln(stderr, "bench-load: unexpected argument or a count below 1 (see bench-load -h)")
		return 2
	}
	o.Progress = stderr
	rep := LoadRun(ctx, o)
	rep.WriteTable(stdout)
	if out != "" {
		if err := rep.WriteJSON(out); err != nil {
			fmt.Fprintf(stderr, "bench-load: writing %s: %v\n", out, err)
			return 1
		}
		fmt.Fprintf(stderr, "bench-load: wrote %s\n", out)
	}
	return 0
}
