package main

import (
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/codemode-conformance/codemode/conformance"
	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/targets/container"
	"github.com/codemode-conformance/codemode/tools/report"
)

// stopGrace is how long the run may take to wind down (interrupt the
// running spec, clean up, write the reports) after SIGINT or SIGTERM before
// the harness exits without them.
const stopGrace = 30 * time.Second

var gotSignal atomic.Value // os.Signal

// onSignal, if set, passes a stop signal on (to the --procs workers).
var onSignal func(os.Signal)

// onForceExit, if set, runs before a second signal exits at once (it
// kills the --procs workers, which wait out stopGrace instead).
var onForceExit func()

// inWorker: this process is a --procs worker. A Ctrl-C reaches it twice,
// from the terminal (the run's process group) and passed on by the CLI, so
// a repeated signal is the same stop, not one to exit at once without the
// worker's report; the CLI kills it on its own second signal.
var inWorker bool

// signaled returns the SIGINT or SIGTERM the run received, or nil.
func signaled() os.Signal {
	s, _ := gotSignal.Load().(os.Signal)
	return s
}

// sigName names s as a shell user would (SIGINT, SIGTERM).
func sigName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// watchSignals makes SIGINT and SIGTERM stop the whole run: the process
// group of every exec: target is killed at once (framework.KillTargets, so
// nothing the harness started outlives it), then Ginkgo, which gets the
// same signal, interrupts the running spec and writes the reports, and the
// run exits 1. A second signal, or a run that has not wound down within
// stopGrace, exits 1 at once. The returned func stops watching.
func watchSignals() (stop func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			gotSignal.Store(s)
			if onSignal != nil {
				onSignal(s) // the other processes of --procs
			}
			framework.KillTargets()
			container.StopAll() // containers still starting, which no endpoint holds yet
			fmt.Fprintf(os.Stderr, "codemode-conformance: %s: killed the target processes; stopping the run (a second signal exits at once)\n", sigName(s))
			grace := time.After(stopGrace)
		wait:
			select {
			case <-ch:
				if inWorker {
					goto wait
				}
			case <-grace:
				fmt.Fprintf(os.Stderr, "codemode-conformance: the run did not stop within %s of %s\n", stopGrace, sigName(s))
			case <-done:
				return
			}
			if onForceExit != nil {
				onForceExit()
			}
			os.Exit(1)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// runControl records in the report how the run was cut short (f, as the
// run recorded it): by --fail-fast after a failing spec, or by a signal
// (which also makes the overall verdict a failure: the run is incomplete).
func runControl(c *report.Conformance, f conformance.Facts) {
	notRun := c.Selection.Specs.Selected - c.Selection.Specs.Ran
	if f.Interrupted != "" {
		c.Overall = report.Failure
		c.Reasons = append(c.Reasons, fmt.Sprintf("interrupted by %s: the run was stopped, %d selected %s did not run", f.Interrupted, notRun, plural(notRun, "spec", "specs")))
		return
	}
	if f.FailFast && notRun > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("stopped after the first failing spec (--fail-fast): %d selected %s did not run", notRun, plural(notRun, "spec", "specs")))
	}
}
