package framework

import (
	"fmt"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// Blocked stops the running spec because a precondition owned by requirement
// req did not hold (one fault, one requirement: CONTRIBUTING.md). The spec's
// verdict is "blocked by <req>: <message>", neither a pass nor a failure of
// its own requirement; req's own specs judge the fault.
//
// Mechanism: a typed report entry evidence.BlockedEntry (evidence.Blocked)
// and then ginkgo.Skip with the same text, so Ginkgo stops the spec and its
// cleanups run; tools/report reads the entry, not the message. A failure
// after it (a cleanup, a crash charged by endSpec) still makes the spec fail.
//
// When no spec of req is selected in the run (--req of another
// requirement only), the message says so: the block stands, and req's own
// verdict is what the user has to run to see the fault judged.
//
// An unknown req panics, as It does; so does req naming the running spec's
// own requirement (that is a failure of the spec, use Expect).
func Blocked(req string, format string, args ...any) {
	blocked(req, fmt.Sprintf(format, args...), 1)
}

func blocked(req, msg string, skip int) {
	if _, ok := spec.Lookup(req); !ok {
		panic(fmt.Sprintf("framework.Blocked: unknown requirement id %q", req))
	}
	if own := currentRequirement(); own != "" && own == req {
		panic(fmt.Sprintf("framework.Blocked: a spec of %s cannot be blocked by its own requirement (fail it instead)", req))
	}
	b := evidence.Blocked{By: req, Message: msg + notSelectedNote(req)}
	ginkgo.AddReportEntry(evidence.BlockedEntry, b, ginkgo.ReportEntryVisibilityNever, ginkgo.Offset(skip+1))
	ginkgo.Skip(b.String(), skip+1)
}

// Precondition returns a Gomega for what requirement req owns and the
// running spec only relies on (the guest API, the result shape, a probe
// cell completing): a failing Expect(...).To(...), Eventually or Consistently
// made with it stops the spec as Blocked(req, the failure message). An
// unknown req panics.
//
//	framework.Precondition("CM-EXEC-01").Expect(res.Status).To(Equal(protocol.StatusCompleted),
//		"the probe cell must complete before its report can be read: %s", res)
func Precondition(req string) gomega.Gomega {
	if _, ok := spec.Lookup(req); !ok {
		panic(fmt.Sprintf("framework.Precondition: unknown requirement id %q", req))
	}
	return gomega.NewGomega(func(message string, callerSkip ...int) {
		skip := 1
		if len(callerSkip) > 0 {
			skip += callerSkip[0]
		}
		blocked(req, message, skip)
	})
}

// isBlocked returns the Blocked entry of a spec report, if the spec was
// stopped by Blocked (attachFailure attaches its evidence too).
func isBlocked(rep ginkgo.SpecReport) (evidence.Blocked, bool) {
	for _, e := range rep.ReportEntries {
		if e.Name == evidence.BlockedEntry {
			var b evidence.Blocked
			if evidence.Decode(e.Value, &b) == nil {
				return b, true
			}
		}
	}
	return evidence.Blocked{}, false
}

// wantsEvidence reports whether the running spec's transcripts are worth
// attaching: it failed, or it was blocked (the evidence shows the owning
// requirement's fault).
func wantsEvidence() bool {
	rep := ginkgo.CurrentSpecReport()
	if rep.Failed() {
		return true
	}
	_, blocked := isBlocked(rep)
	return blocked
}
