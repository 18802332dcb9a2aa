package framework

import (
	"strings"
	"sync"

	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/onsi/ginkgo/v2"
)

// rendered remembers the Result texts (Result.String) produced during the
// running spec, so that a failure whose message holds one of them can carry
// that result and its guest code as typed evidence (evidence.Failure):
// reports read the entry, never the message text.
var rendered renderLog

// maxRendered bounds the texts kept per spec (the latest win).
const maxRendered = 64

type renderedResult struct {
	text string
	res  Result
}

type renderLog struct {
	mu   sync.Mutex
	list []renderedResult
}

func (l *renderLog) add(text string, r Result) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.list) >= maxRendered {
		l.list = l.list[1:]
	}
	l.list = append(l.list, renderedResult{text: text, res: r})
}

// take returns the texts rendered since the last take and forgets them.
func (l *renderLog) take() []renderedResult {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.list
	l.list = nil
	return out
}

// failureEvidence returns the typed evidence of a failure message: the
// latest result rendered into it, and the message without that text. ok is
// false when the message names no rendered result.
func failureEvidence(msg string, list []renderedResult) (evidence.Failure, bool) {
	for i := len(list) - 1; i >= 0; i-- {
		x := list[i]
		at := strings.Index(msg, x.text)
		if at < 0 {
			continue
		}
		rest := strings.TrimRight(msg[:at], "\n") + msg[at+len(x.text):]
		res, _ := evidence.Bounded(x.res.Raw)
		return evidence.Failure{Message: strings.TrimRight(rest, "\n"), Result: res, GuestCode: x.res.GuestCode}, true
	}
	return evidence.Failure{}, false
}

// attachFailure runs after every spec (the last of its cleanups): when the
// spec failed (or was blocked) and its message names a result, it attaches that result and
// its guest code as the report entry evidence.FailureEntry.
func attachFailure() {
	list := rendered.take()
	rep := ginkgo.CurrentSpecReport()
	if _, blocked := isBlocked(rep); !rep.Failed() && !blocked {
		return
	}
	if f, ok := failureEvidence(rep.Failure.Message, list); ok {
		ginkgo.AddReportEntry(evidence.FailureEntry, f, ginkgo.ReportEntryVisibilityNever)
	}
}
