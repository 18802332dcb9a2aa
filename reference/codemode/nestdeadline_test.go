package codemode

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/spec/result"
)

// A nested call the host never answers rejects in the guest once
// snapshotTtlSeconds have passed since it was sent, however often the model
// calls wait meanwhile (issue 11: every wait returned waiting until the TTL
// ended the cell, and only a wait-free TTL did).
func TestUnansweredNestedCallHasADeadline(t *testing.T) {
	eng := testEngine(t)
	rt := sessionRuntime(t, eng, &heldInvoker{}, Options{DrainFraction: 0.1}, `{"enabled":true,"timeoutMs":1000,"snapshotTtlSeconds":1}`)
	start := time.Now()
	res := execIn(t, rt, `try { await tools.call(ALL_TOOLS[0].id, {}); return "answered"; } catch (e) { return e.code + ": " + e.message; }`)
	waits := 0
	for res.Status == result.StatusWaiting && waits < 50 {
		res = waitIn(t, rt, res.RunID)
		waits++
	}
	var got string
	_ = json.Unmarshal(res.Value, &got)
	if res.Status != result.StatusCompleted || !strings.HasPrefix(got, "nested_tool_failed: nested tool call ") || !strings.Contains(got, "no answer within snapshotTtlSeconds (1 s)") {
		t.Fatalf("after %d waits: %+v (%q); want the guest to catch the call's deadline", waits, res, got)
	}
	if took := time.Since(start); took < time.Second {
		t.Fatalf("the call was given up after %v, before snapshotTtlSeconds (1 s)", took)
	}
	if st := rt.Stats(); st.SuspendedRuns != 0 {
		t.Fatalf("a suspended run is left: %+v", st)
	}
}
