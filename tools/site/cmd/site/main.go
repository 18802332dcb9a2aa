// Command site writes the static comparison site (package site) into a
// folder, from the committed reports and the reference's runs:
//
//	go run ./tools/site/cmd/site --reference v1=results --reference v2=results-v2 --out site
//
// --reference names a run folder holding report.json (and
// conformance-report.yaml) of a run of every suite against the reference
// under a profile; without one the reference's columns are left out. Exit 1
// on a source that cannot be read.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/tools/site"
)

func main() {
	var o site.Options
	flag.Func("reference", `"profile=dir": a run of every suite against the reference under profile, dir holding its report.json (repeatable)`, func(v string) error {
		p, dir, ok := strings.Cut(v, "=")
		if !ok || p == "" || dir == "" {
			return fmt.Errorf("want profile=dir, got %q", v)
		}
		if _, err := spec.LookupProfile(p); err != nil {
			return err
		}
		o.Reference = append(o.Reference, site.ReferenceRun{Profile: p, Dir: dir})
		return nil
	})
	flag.StringVar(&o.Root, "root", ".", "top of the checkout the report paths are relative to")
	flag.StringVar(&o.Ledger, "ledger", "reports/diff/diff.json", `differential ledger ("-": none)`)
	out := flag.String("out", "site", "folder to write")
	flag.Parse()
	s, err := site.Load(o)
	if err == nil {
		err = site.Write(s, *out)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "site:", err)
		os.Exit(1)
	}
	fmt.Printf("site: %d columns, %d requirements' areas, written to %s/index.html\n", len(s.Columns), len(s.Areas), *out)
}
