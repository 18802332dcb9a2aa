package main

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/codemode-conformance/codemode/fakes/broken"
)

// listCommand runs `codemode-conformance list fakes`: one line per
// deliberately broken variant (--target fake:<variant>) with the
// requirement it breaks, the profile it is judged under and its defect.
// It returns the exit status: 2 for anything but "fakes".
func listCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || args[0] != "fakes" {
		fmt.Fprintf(stderr, "list takes one argument, fakes, got %d: %q\nusage: codemode-conformance list fakes\n", len(args), args)
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
	if err := tw.Flush(); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}
