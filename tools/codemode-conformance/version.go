package main

import (
	"flag"
	"fmt"
	"github.com/codemode-conformance/codemode/internal/subcmd"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/suites/framework"
)

// version is the release version `make dist` stamps from `git describe`
// (-ldflags "-X main.version=…"); empty in other builds, where harnessVersion
// falls back on the VCS stamp of debug.ReadBuildInfo.
var version string

// harnessVersion is this binary's version: the stamped release version, or
// framework.HarnessVersion plus the commit it was built from (+dirty when
// the work tree had changes), or framework.HarnessVersion alone when the
// build carries no VCS information (go run, -buildvcs=false).
func harnessVersion() string {
	if version != "" {
		return version
	}
	v := framework.HarnessVersion
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	v += "+" + rev
	if modified == "true" {
		v += ".dirty"
	}
	return v
}

// versionCommand prints the harness version, the catalogue version, the
// protocol version and the embedded engine (QuickJS-NG version, npm package
// and the sha256 of the quickjs.wasm in this build, or why builtin cannot
// run). Exit 0, or 2 on arguments.
func versionCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: codemode-conformance version\n\nPrints the harness version (release tag or commit), the requirement catalogue version,\nthe driver protocol version and the embedded engine (QuickJS-NG, sha256 of its wasm). Exit 0.")
	}
	if code, done := subcmd.Parse(fs, args, stdout); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "version takes no arguments, got %q\n", fs.Args())
		return 2
	}
	fmt.Fprintf(stdout, "codemode-conformance %s\n", harnessVersion())
	fmt.Fprintf(stdout, "catalogue: %d\n", spec.Version())
	fmt.Fprintf(stdout, "protocol: %s\n", protocol.Version)
	sum, err := engine.EmbeddedSHA256()
	if err != nil {
		fmt.Fprintf(stdout, "engine: QuickJS-NG %s (%s), not embedded: builtin fails closed; exec:, tcp: and container: targets work\n", engine.Version, engine.Package)
	} else {
		fmt.Fprintf(stdout, "engine: QuickJS-NG %s (%s), quickjs.wasm sha256 %s\n", engine.Version, engine.Package, sum)
	}
	fmt.Fprintf(stdout, "go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return 0
}
