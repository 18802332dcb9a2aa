package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// echoInvoker answers every nested call at once with its input.
type echoInvoker struct{}

func (echoInvoker) Invoke(_ context.Context, p protocol.InvokeParams) (json.RawMessage, error) {
	return p.Input, nil
}

func benchRun(b *testing.B) (*Runtime, string) {
	b.Helper()
	eng, err := engine.New(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { eng.Close(context.Background()) })
	rt := New(eng, echoInvoker{}, Options{})
	b.Cleanup(rt.Close)
	res := rt.Prepare(protocol.PrepareParams{Run: "bench", RunContext: protocol.RunContext{AgentID: "a", SessionID: "s", SessionKey: "k", SenderID: "x", Channel: "c"},
		CodeMode: json.RawMessage(`true`), Tools: []protocol.ToolSpec{{Name: "echo", Description: "echo", Source: protocol.SourceOpenClaw, Owner: "core"}}})
	if !res.CodeModeActive {
		b.Fatalf("prepare: %+v", res)
	}
	return rt, "bench"
}

func execOK(b testing.TB, rt *Runtime, run, code string, want result.Status) result.Result {
	b.Helper()
	in, _ := json.Marshal(map[string]string{"code": code})
	res, err := rt.Exec(context.Background(), run, "call", in)
	if err != nil || res.Status != want {
		b.Fatalf("exec %q: %+v, %v", code, res, err)
	}
	return res
}

// BenchmarkExec: one trivial cell end to end (the booted template restored
// into a fresh VM, boot with the run's catalog, run, result).
func BenchmarkExec(b *testing.B) {
	rt, run := benchRun(b)
	for b.Loop() {
		execOK(b, rt, run, `return 1 + 1;`, result.StatusCompleted)
	}
}

// BenchmarkExecNestedCalls: a cell making 10 nested calls in parallel.
func BenchmarkExecNestedCalls(b *testing.B) {
	rt, run := benchRun(b)
	code := `const id = ALL_TOOLS[0].id; return (await Promise.all(Array.from({length: 10}, (_, i) => tools.call(id, {i})))).length;`
	for b.Loop() {
		execOK(b, rt, run, code, result.StatusCompleted)
	}
}

// BenchmarkSuspendWait: a cell that yields (snapshot taken, VM closed) and
// is resumed by wait (snapshot restored into a fresh VM).
func BenchmarkSuspendWait(b *testing.B) {
	rt, run := benchRun(b)
	for i := 0; b.Loop(); i++ {
		w := execOK(b, rt, run, `await yield_control("bench"); return 2;`, result.StatusWaiting)
		b.ReportMetric(float64(rt.Stats().SnapshotBytes), "idle-snapshot-bytes")
		in, _ := json.Marshal(map[string]string{"runId": w.RunID})
		res, err := rt.Wait(context.Background(), run, fmt.Sprint("wait-", i), in)
		if err != nil || res.Status != result.StatusCompleted {
			b.Fatalf("wait: %+v, %v", res, err)
		}
	}
}
