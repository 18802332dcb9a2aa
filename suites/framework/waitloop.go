package framework

import (
	"context"
	"fmt"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/result"
)

// WaitLoop bounds one loop of waits that follows a waiting cell to its end
// (Follow, FollowAs, the corpus's Drive, the abuse suite's settle) by time,
// not by count. A target may suspend at any point while a nested call is
// pending (spec/protocol.md §10): one that suspends at every call, and
// answers a wait at once while its call is still pending, needs many more
// waits than the reference, each in milliseconds, and conforms. So the loop
// gives a waiting cell Timeouts.FollowBudgets of its run's time budgets
// (timeoutMs), counted from the loop's start, however many waits the target
// answers in that time, and never more than fits before the spec's deadline
// (WaitFits). Timeouts.MaxWaits is only a safety bound against a target
// that answers waiting at once, forever.
//
// A loop that stops with the cell still waiting leaves the verdict to the
// spec, which judges the still-waiting result against its requirement: its
// failure message carries the result, and the result carries Note (the
// number of waits, the time they took and why the loop stopped).
type WaitLoop struct {
	timeout time.Duration
	start   time.Time
	budget  time.Duration
	waits   int
	stop    string
}

// NewWaitLoop starts a loop for a run whose time budget is timeout (its
// effective timeoutMs).
func NewWaitLoop(timeout time.Duration) *WaitLoop {
	return &WaitLoop{timeout: timeout, start: time.Now(), budget: time.Duration(Timeouts.FollowBudgets) * timeout}
}

// More reports whether another wait may be sent, and counts it when it
// may: the loop is within its time (Timeouts.FollowBudgets × timeoutMs),
// another wait fits before the spec's deadline (WaitFits), and fewer than
// Timeouts.MaxWaits were sent. When it returns false, Stopped says why.
func (l *WaitLoop) More() bool {
	switch {
	case l.waits >= Timeouts.MaxWaits:
		l.stop = fmt.Sprintf("the harness's safety bound of %d waits (a target that answers waiting at once, without end)", Timeouts.MaxWaits)
	case time.Since(l.start) >= l.budget:
		l.stop = fmt.Sprintf("the loop's bound of %d × timeoutMs (%d ms) from the first wait", Timeouts.FollowBudgets, l.timeout.Milliseconds())
	case !WaitFits(l.timeout):
		l.stop = fmt.Sprintf("the spec's deadline (another wait at timeoutMs %d ms could outlast it)", l.timeout.Milliseconds())
	default:
		l.stop = ""
		l.waits++
		return true
	}
	return false
}

// Waits is how many waits the loop sent.
func (l *WaitLoop) Waits() int { return l.waits }

// Stopped is why the last More returned false ("" while it returns true).
func (l *WaitLoop) Stopped() string { return l.stop }

// Note describes a loop that stopped with its cell still waiting: the
// waits it sent, each answered in time, how long they took, and why it
// stopped. It ends the still-waiting result's String, so every failure
// message that shows the result says it.
func (l *WaitLoop) Note() string {
	return fmt.Sprintf("still waiting after %d waits in %s, each answered in time; the harness stopped at %s", l.waits, time.Since(l.start).Round(time.Millisecond), l.stop)
}

// AwaitPending returns once one of the nested calls res names as pending
// (pendingToolCalls, whose ids are the tool.invoke toolCallIds, §6) has
// been answered from set, at once if one already was, or after at most
// bound; at once for a result that names none (a yield). The next wait then
// has something to deliver: a target that answers a wait at once while its
// call is still pending (spec/protocol.md §10) is not driven round a loop
// of waits that cannot progress, and one that waits for its calls itself
// sees no difference beyond timing. A call the harness does not answer
// (MCP) is never answered from set: the pause is bound long.
func AwaitPending(set *tools.Set, res result.Result, bound time.Duration) {
	if res.Status != result.StatusWaiting || res.Reason != result.ReasonPendingTools || len(res.PendingToolCalls) == 0 {
		return
	}
	ids := make([]string, 0, len(res.PendingToolCalls))
	for _, p := range res.PendingToolCalls {
		ids = append(ids, p.ID)
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	set.AnyReturned(ctx, ids)
}

// awaitPending is AwaitPending for r's tools.
func (r *Run) awaitPending(res result.Result, bound time.Duration) { AwaitPending(r.Tools, res, bound) }
