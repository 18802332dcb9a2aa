package codemode

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// countingInvoker answers every nested call with its input and counts them.
type countingInvoker struct{ n atomic.Int64 }

func (c *countingInvoker) Invoke(_ context.Context, p protocol.InvokeParams) (json.RawMessage, error) {
	c.n.Add(1)
	return p.Input, nil
}

func faultsRun(t *testing.T, codeMode string) (*Runtime, *countingInvoker) {
	t.Helper()
	eng, err := engine.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	inv := &countingInvoker{}
	rt := New(eng, inv, Options{})
	t.Cleanup(rt.Close)
	res := rt.Prepare(protocol.PrepareParams{Run: "faults", RunContext: protocol.RunContext{AgentID: "a", SessionID: "s", SessionKey: "k", SenderID: "x", Channel: "c"},
		CodeMode: json.RawMessage(codeMode), Tools: []protocol.ToolSpec{{Name: "echo", Description: "echo", Source: protocol.SourceOpenClaw, Owner: "core"}}})
	if !res.CodeModeActive {
		t.Fatalf("prepare: %+v", res)
	}
	return rt, inv
}

func execCode(t *testing.T, rt *Runtime, code string) result.Result {
	t.Helper()
	in, _ := json.Marshal(map[string]string{"code": code})
	res, err := rt.Exec(context.Background(), "faults", "call", in)
	if err != nil {
		t.Fatalf("exec %q: %v", code, err)
	}
	return res
}

// A cell that throws with a call still queued never dispatches it
// (CM-NEST-23), nor does a batch over maxPendingToolCalls start any call.
func TestQueuedCallsOfAFailedCellAreNeverDispatched(t *testing.T) {
	rt, inv := faultsRun(t, `{"enabled":true,"maxPendingToolCalls":2}`)
	for _, code := range []string{
		`tools.call(ALL_TOOLS[0].id, {}); throw new Error("boom");`,
		`await Promise.all([1, 2, 3].map(() => tools.call(ALL_TOOLS[0].id, {})));`,
	} {
		if res := execCode(t, rt, code); res.Status != result.StatusFailed {
			t.Errorf("%s: status %s, want failed", code, res.Status)
		}
	}
	if n := inv.n.Load(); n != 0 {
		t.Errorf("%d nested calls were dispatched, want 0", n)
	}
}

// A failed result carries only output within maxOutputBytes, and its error
// shares the budget (CM-LIM-08).
func TestFailedResultIsBounded(t *testing.T) {
	rt, _ := faultsRun(t, `{"enabled":true,"maxOutputBytes":2048}`)
	for _, code := range []string{
		`text("x".repeat(3e6)); return 1;`,
		`text("o".repeat(2000)); text("p".repeat(2000)); return 1;`,
		`text("o".repeat(2000)); throw new Error("E".repeat(200000));`,
	} {
		res := execCode(t, rt, code)
		res.Telemetry = nil
		b, _ := json.Marshal(res)
		if n := result.ContentSize(b); res.Status != result.StatusFailed || n > 2048+result.ResultEnvelopeBytes {
			t.Errorf("%s: status %s, %d bytes of result, want failed within %d", code, res.Status, n, 2048+result.ResultEnvelopeBytes)
		}
	}
	// JSON escapes do not count (CM-LIM-09).
	if res := execCode(t, rt, `text("\u0001".repeat(1500)); return "\"".repeat(500);`); res.Status != result.StatusCompleted {
		t.Errorf("1500 control characters and 500 quotes: %s %s, want completed", res.Status, res.Error)
	}
	if res := execCode(t, rt, `throw {status: 404};`); !strings.Contains(res.Error, `{"status":404}`) {
		t.Errorf("throw {status: 404}: error %q, want the object's JSON", res.Error)
	}
}
