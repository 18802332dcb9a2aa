// Command openclaw-install installs a pinned OpenClaw (and Node 24) into the
// cache that target openclaw:<version> uses, and prints the exec: command
// line it runs as.
//
//	openclaw-install 2026.7.35
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/codemode-conformance/codemode/targets/openclaw"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintf(os.Stderr, "usage: openclaw-install <version> (pinned: %v)\n", openclaw.Versions())
		os.Exit(2)
	}
	inst, err := openclaw.Install(context.Background(), os.Args[1], os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "openclaw-install:", err)
		if errors.Is(err, openclaw.ErrUnknownVersion) {
			os.Exit(2)
		}
		os.Exit(1)
	}
	fmt.Println("exec:" + inst.CommandLine())
}
