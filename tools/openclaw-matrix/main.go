// Command openclaw-matrix writes the OpenClaw release matrix: requirement ×
// release, each verdict's change from the previous judged release marked,
// from the committed reports/openclaw-<version>/ folders (a release's
// conformance-report.yaml, or the drivability.json of a release the
// adapters cannot drive). make openclaw-matrix judges the releases and then
// runs it.
//
//	openclaw-matrix --out reports/openclaw-matrix 2026.5.28 2026.6.35 2026.7.1 2026.7.35 2026.8.2 2026.9.4 2026.9.6
//
// It writes MATRIX.md and matrix.json to --out. Releases may be given in any
// order (columns are oldest first), as arguments or one comma- or
// space-separated argument. Exit status 1 when a release has neither file
// (ErrNotJudged) or a file does not parse, 2 on a usage error.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
)

func main() {
	reports := flag.String("reports", "reports", "the folder holding openclaw-<version>/ (relative to the module root)")
	out := flag.String("out", "reports/openclaw-matrix", "the folder to write MATRIX.md and matrix.json to")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: openclaw-matrix [--reports reports] [--out reports/openclaw-matrix] <version>...")
		flag.PrintDefaults()
	}
	flag.Parse()
	var versions []string
	for _, a := range flag.Args() {
		versions = append(versions, strings.FieldsFunc(a, func(r rune) bool { return r == ',' || r == ' ' })...)
	}
	if len(versions) == 0 {
		flag.Usage()
		os.Exit(2)
	}
	releases, err := Load(".", *reports, versions)
	if err != nil {
		fail(err)
	}
	m := Build(releases, spec.Requirements())
	var vs []string
	for _, r := range releases {
		vs = append(vs, r.Version)
	}
	md := m.Markdown(fmt.Sprintf("make openclaw-matrix RELEASES=%q", strings.Join(vs, " ")), spec.Areas())
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		fail(err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	for name, b := range map[string][]byte{"MATRIX.md": md, "matrix.json": append(js, '\n')} {
		if err := os.WriteFile(filepath.Join(*out, name), b, 0o644); err != nil {
			fail(err)
		}
	}
	fmt.Printf("openclaw-matrix: %d releases × %d requirements in %s\n", len(releases), len(m.Rows), filepath.Join(*out, "MATRIX.md"))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "openclaw-matrix:", err)
	os.Exit(1)
}
