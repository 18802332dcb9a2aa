// Command openclaw-install installs a pinned OpenClaw (and Node 24) into the
// cache that target openclaw:<version> uses, and prints the exec: command
// line it runs as.
//
//	openclaw-install 2026.7.35
//	openclaw-install --check 2026.5.28   # install, then ask the adapter whether it can drive it
//	openclaw-install --profile 2026.8.2  # the profile its generation is judged under (v1, v2)
//	openclaw-install --list              # the pinned versions, one a line
//
// --check prints the adapter's answer (openclaw.Drivability as JSON) and
// exits 0 when drivable, 3 when not (the answer's reason names the missing
// functions), 1 on another failure. Usage errors and unpinned versions exit 2.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/codemode-conformance/codemode/targets/openclaw"
)

func main() {
	check := flag.Bool("check", false, "install, then print whether the adapter can drive the version (JSON; exit 3 when not)")
	profile := flag.Bool("profile", false, "print the profile the version's generation is judged under and exit")
	list := flag.Bool("list", false, "print the pinned versions, one a line, and exit")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: openclaw-install [--check | --profile] <version> | --list (pinned: %v)\n", openclaw.Versions())
	}
	flag.Parse()
	if *list {
		fmt.Println(strings.Join(openclaw.Versions(), "\n"))
		return
	}
	if flag.NArg() != 1 || (*check && *profile) {
		flag.Usage()
		os.Exit(2)
	}
	version := flag.Arg(0)
	if *profile {
		if !pinned(version) {
			fmt.Fprintf(os.Stderr, "openclaw-install: %v %q (pinned: %v)\n", openclaw.ErrUnknownVersion, version, openclaw.Versions())
			os.Exit(2)
		}
		fmt.Println(openclaw.Profile(version))
		return
	}
	inst, err := openclaw.Install(context.Background(), version, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "openclaw-install:", err)
		if errors.Is(err, openclaw.ErrUnknownVersion) {
			os.Exit(2)
		}
		os.Exit(1)
	}
	if !*check {
		fmt.Println("exec:" + inst.CommandLine())
		return
	}
	d, err := openclaw.Check(context.Background(), inst)
	if d.Version != "" {
		b, _ := json.MarshalIndent(d, "", "  ")
		fmt.Println(string(b))
	}
	switch {
	case errors.Is(err, openclaw.ErrNotDrivable):
		fmt.Fprintln(os.Stderr, "openclaw-install:", err)
		os.Exit(3)
	case err != nil:
		fmt.Fprintln(os.Stderr, "openclaw-install:", err)
		os.Exit(1)
	}
}

func pinned(version string) bool {
	for _, v := range openclaw.Versions() {
		if v == version {
			return true
		}
	}
	return false
}
