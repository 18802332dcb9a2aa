package report

import "github.com/codemode-conformance/codemode/suites/evidence"

// Normalise returns a failure message with what varies from run to run
// (run ids, durations, timestamps, ports, temporary paths, pids, pointers)
// replaced, for comparing two runs of the same target: evidence.Normalise.
func Normalise(msg string) string { return evidence.Normalise(msg) }
