package main

import (
	"flag"
	"fmt"
	"github.com/codemode-conformance/codemode/internal/subcmd"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/codemode-conformance/codemode/fakes/broken"
	"github.com/codemode-conformance/codemode/fakes/hostile"
)

// listUsage is the help of the list command.
func listUsage(w io.Writer) {
	fmt.Fprint(w, `usage: codemode-conformance list fakes

Subcommands:
  fakes   every deliberately broken fake:<variant> target: the requirement it
          breaks, the profile it is judged under and its defect; then the
          fake:hostile* targets, whose strings attack the reports themselves
          (BREAKS "reports": a run against one fails, and every report and
          console line stays escaped and bounded)

Exit status: 0 listed (or -h), 2 usage error (no or an unknown subcommand).
`)
}

// listCommand runs `codemode-conformance list fakes`: one line per
// deliberately broken variant (--target fake:<variant>) with the
// requirement it breaks, the profile it is judged under and its defect,
// then the hostile-strings targets (fakes/hostile; BREAKS "reports").
// -h, -help or --help anywhere prints the usage on stdout and returns 0;
// anything but "fakes" is a usage error (2).
func listCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { listUsage(fs.Output()) }
	// list fakes -h is help too: flags may follow the subcommand.
	var rest []string
	for len(args) > 0 {
		if code, done := subcmd.Parse(fs, args, stdout); done {
			return code
		}
		if fs.NArg() == 0 {
			break
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
	args = rest
	if len(args) != 1 || args[0] != "fakes" {
		if len(args) == 0 {
			fmt.Fprint(stderr, "list needs a subcommand\n\n")
		} else {
			fmt.Fprintf(stderr, "list: unknown subcommand %q (want fakes, alone)\n\n", strings.Join(args, " "))
		}
		listUsage(stderr)
		return 2
	}
	vs := append([]broken.Variant{}, broken.Variants...)
	sort.Slice(vs, func(i, j int) bool { return vs[i].Name < vs[j].Name })
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TARGET\tBREAKS\tPROFILE\tDEFECT")
	for _, v := range vs {
		prof := v.Profile
		if prof == "" {
			prof = "v1"
		}
		fmt.Fprintf(tw, "fake:%s\t%s\t%s\t%s\n", v.Name, v.Breaks, prof, v.Defect)
	}
	for _, c := range broken.ConformingVariants {
		prof := c.Profile
		if prof == "" {
			prof = "any"
		}
		fmt.Fprintf(tw, "fake:%s\tnothing\t%s\t%s\n", c.Name, prof, c.Help)
	}
	for _, h := range hostile.Targets {
		fmt.Fprintf(tw, "fake:%s\treports\tany\t%s\n", h.Name, h.Help)
	}
	if err := tw.Flush(); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}
