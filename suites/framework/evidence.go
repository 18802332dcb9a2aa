package framework

import (
	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/onsi/ginkgo/v2"
)

// SelfReportedEntry names the Ginkgo report entry with which a spec says
// that part of its verdict trusts what the target reports about itself
// (runtime.stats), because no behaviour seen from outside can show it: the
// report shows such a pass as "pass (self-reported)".
const SelfReportedEntry = evidence.SelfReportedEntry

// SelfReported marks the running spec's evidence as self-reported; what says
// what was trusted, e.g. "liveVMs = 0 while the cell waits (runtime.stats)".
// It changes no verdict: a failing spec still fails.
func SelfReported(what string) {
	ginkgo.AddReportEntry(SelfReportedEntry, what, ginkgo.ReportEntryVisibilityNever)
}
