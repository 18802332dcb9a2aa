package framework

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// A wait loop is bounded by time (FollowBudgets × timeoutMs), not by a
// count: a target that answers each wait at once gets as many waits as fit,
// up to the safety bound, and the note names the waits, their time and why
// the loop stopped (issue 23 item 5).
func TestWaitLoopIsBoundedByTimeNotByCount(t *testing.T) {
	defer func(b, m int) { Timeouts.FollowBudgets, Timeouts.MaxWaits = b, m }(Timeouts.FollowBudgets, Timeouts.MaxWaits)
	Timeouts.FollowBudgets, Timeouts.MaxWaits = 20, 1<<40

	l := NewWaitLoop(time.Millisecond) // 20 ms in all
	for l.More() {
	}
	if l.Waits() <= 20 {
		t.Errorf("a target answering every wait at once got %d waits in 20 × 1 ms; the old count of 20 is no bound any more", l.Waits())
	}
	if !strings.Contains(l.Stopped(), "20 × timeoutMs (1 ms)") {
		t.Errorf("stopped at %q, want the loop's time bound", l.Stopped())
	}

	Timeouts.MaxWaits = 7
	l = NewWaitLoop(time.Hour)
	for l.More() {
	}
	if l.Waits() != 7 {
		t.Errorf("the safety bound of 7 waits let %d through", l.Waits())
	}
	if n := l.Note(); !strings.Contains(n, "after 7 waits in ") || !strings.Contains(n, "safety bound of 7 waits") {
		t.Errorf("the note must name the waits, their time and the safety bound: %q", n)
	}
}

// The pause before a wait ends as soon as a call the waiting result lists
// as pending has been answered, and at once for a result listing none.
func TestAwaitPendingEndsWhenAPendingCallReturned(t *testing.T) {
	release := make(chan struct{})
	set := tools.NewSet(tools.Core("held", "Held until released.", nil, func(context.Context, json.RawMessage) (any, error) {
		<-release
		return "ok", nil
	}))
	waiting := result.Result{Status: result.StatusWaiting, Reason: result.ReasonPendingTools,
		PendingToolCalls: []result.PendingToolCall{{ID: "cell/call-001"}}}
	start := time.Now()
	AwaitPending(set, result.Result{Status: result.StatusWaiting, Reason: result.ReasonYield}, time.Hour)
	if d := time.Since(start); d > time.Second {
		t.Fatalf("a yield has nothing pending: the pause took %s", d)
	}
	go func() {
		_, _ = set.Invoke(context.Background(), protocol.InvokeParams{ToolCallID: "cell/call-001", Tool: "held", Source: protocol.SourceOpenClaw, Owner: "core"})
	}()
	done := make(chan struct{})
	go func() { AwaitPending(set, waiting, time.Hour); close(done) }()
	select {
	case <-done:
		t.Fatal("the pause ended before the pending call returned")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the pause did not end when the pending call returned")
	}
	start = time.Now()
	AwaitPending(set, waiting, time.Hour) // answered already: at once
	if d := time.Since(start); d > time.Second {
		t.Errorf("a call answered already ends the pause at once: it took %s", d)
	}
}
