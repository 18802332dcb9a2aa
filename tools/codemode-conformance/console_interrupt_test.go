package main

import (
	"strings"
	"testing"
)

// Ginkgo's interrupt report can reach the console before watchSignals
// records the signal: its delimiter, its "Interrupted by User" block and
// the goroutine dump after it are dropped, while a delimiter before
// anything else is written as it was.
func TestConsoleDropsInterruptReport(t *testing.T) {
	var out strings.Builder
	c := &console{w: &out, bol: true}
	for _, w := range []string{"[1] codemode conformance - 1/357 specs ", "\n", "  \x1b[38;5;243m------------------------------\x1b[0m", "\n",
		"  \x1b[1mInterrupted by User\x1b[0m\n  First interrupt received\n", "  goroutine 375 [runnable]\n"} {
		c.Write([]byte(w))
	}
	c.Print("[  1] ERROR CM-EXEC-01 a (6ms)\n")
	if got, want := out.String(), "[1] codemode conformance - 1/357 specs \n[  1] ERROR CM-EXEC-01 a (6ms)\n"; got != want {
		t.Errorf("console wrote %q, want %q", got, want)
	}

	out.Reset()
	c = &console{w: &out, bol: true}
	for _, w := range []string{"------------------------------", "\n", "[FAILED] in [BeforeSuite]\n"} {
		c.Write([]byte(w))
	}
	if got, want := out.String(), "------------------------------\n[FAILED] in [BeforeSuite]\n"; got != want {
		t.Errorf("console wrote %q, want %q", got, want)
	}
}
