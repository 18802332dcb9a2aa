package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/onsi/gomega"
)

// heldInvoker answers a nested call with its input once release is closed
// (or never, when release is nil), or gives up when the call is canceled.
type heldInvoker struct{ release chan struct{} }

func (h *heldInvoker) Invoke(ctx context.Context, p protocol.InvokeParams) (json.RawMessage, error) {
	select {
	case <-h.release:
		return p.Input, nil
	case <-ctx.Done():
		return nil, &ToolError{Message: "canceled"}
	}
}

// run.abort racing tool.wait, 150 times with varying delays: every outcome
// is the completed value or a failure with a code, never a failure without
// one (the review's "a promise never settles", issue 11).
func TestAbortRacingWaitAlwaysHasACode(t *testing.T) {
	eng := testEngine(t)
	inv := &heldInvoker{}
	rt := New(eng, inv, Options{DrainFraction: 0.02})
	t.Cleanup(rt.Close)
	outcomes := map[string]int{}
	for i := range 150 {
		run := fmt.Sprint("a", i)
		rt.Prepare(protocol.PrepareParams{Run: run, RunContext: protocol.RunContext{AgentID: "a", SessionID: "s", SessionKey: "k", SenderID: "x", Channel: "c"},
			CodeMode: json.RawMessage(`{"enabled":true,"timeoutMs":1000}`), Tools: []protocol.ToolSpec{{Name: "echo", Description: "echo", Source: protocol.SourceOpenClaw, Owner: "core"}}})
		inv.release = make(chan struct{})
		code := fmt.Sprintf(`const r = await tools.call(ALL_TOOLS[0].id, {v: %d}); return r.v;`, i)
		if i%4 == 0 {
			code = fmt.Sprintf(`await yield_control("race"); return %d;`, i)
		}
		in, _ := json.Marshal(map[string]string{"code": code})
		w, err := rt.Exec(context.Background(), run, "x", in)
		if err != nil || w.Status != result.StatusWaiting {
			t.Fatalf("iteration %d: exec %q: %+v, %v; want waiting", i, code, w, err)
		}
		close(inv.release)
		time.Sleep(5 * time.Millisecond) // the held answer reaches the cell
		got := make(chan result.Result, 1)
		go func() {
			in, _ := json.Marshal(map[string]string{"runId": w.RunID})
			r, err := rt.Wait(context.Background(), run, "w", in)
			if err != nil {
				r = result.Result{Status: "protocol error: " + result.Status(err.Error())}
			}
			got <- r
		}()
		time.Sleep(time.Duration(i%7) * time.Millisecond / 2)
		rt.Abort(run)
		var r result.Result
		select {
		case r = <-got:
		case <-time.After(20 * time.Second):
			t.Fatalf("iteration %d: the wait racing run.abort never returned", i)
		}
		switch {
		case r.Status == result.StatusCompleted && string(r.Value) == fmt.Sprint(i):
		case r.Status == result.StatusFailed && r.Code.Valid():
		default:
			t.Errorf("iteration %d: wait racing run.abort gave %+v; want the completed value %d or a failure with a code", i, r, i)
		}
		outcomes[string(r.Status)+"/"+string(r.Code)]++
		rt.End(run)
	}
	t.Logf("outcomes of 150 races: %v", outcomes)
}

// slowRestore is a restore that takes longer than any deadline: it ends only
// when the call's context does, as an instantiation on a busy machine does.
type slowRestore struct{ SnapshotSuspender }

func (slowRestore) Resume(ctx context.Context, _ *engine.Engine, _ Parked) (*engine.VM, error) {
	<-ctx.Done()
	return nil, fmt.Errorf("instantiating the module: %w", ctx.Err())
}

// A VM restore that misses the call's deadline (a busy machine) is timeout,
// and one stopped by run.abort is aborted: neither is runtime_unavailable
// nor snapshot_restore_failed, which the review saw under load (issue 11).
func TestVMStartPastItsDeadlineIsTimeout(t *testing.T) {
	eng := testEngine(t)
	rt := sessionRuntime(t, eng, echoInvoker{}, Options{Suspender: slowRestore{}}, `{"enabled":true,"timeoutMs":1000}`)
	w := execIn(t, rt, `await yield_control("slow"); return 1`)
	if w.Status != result.StatusWaiting {
		t.Fatalf("exec: %+v, want waiting", w)
	}
	if r := waitIn(t, rt, w.RunID); r.Status != result.StatusFailed || r.Code != result.CodeTimeout {
		t.Fatalf("a restore past the deadline: %+v; want failed with timeout", r)
	}
	w = execIn(t, rt, `await yield_control("slow"); return 1`)
	got := make(chan result.Result, 1)
	go func() { got <- waitIn(t, rt, w.RunID) }()
	time.Sleep(50 * time.Millisecond)
	rt.Abort("r")
	if r := <-got; r.Status != result.StatusFailed || r.Code != result.CodeAborted {
		t.Fatalf("a restore stopped by run.abort: %+v; want failed with aborted", r)
	}
}

// run.end, like run.abort, stops a cell whose synchronous top level spins
// (the review's D2): the VM is gone at once, not at timeoutMs.
func TestEndStopsSynchronousTopLevel(t *testing.T) {
	eng := testEngine(t)
	rt := sessionRuntime(t, eng, echoInvoker{}, Options{}, `{"enabled":true,"timeoutMs":30000}`)
	done := make(chan result.Result, 1)
	go func() { done <- execIn(t, rt, `while (true) {}`) }()
	gomega.NewWithT(t).Eventually(eng.LiveVMs).WithTimeout(10*time.Second).Should(gomega.Equal(1), "the spinning cell's VM must start")
	rt.End("r")
	select {
	case r := <-done:
		if r.Status != result.StatusFailed || r.Code != result.CodeAborted {
			t.Fatalf("the spinning cell after run.end: %+v; want failed with aborted", r)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the spinning cell ran on after run.end (it would end only at timeoutMs, 30 s)")
	}
	if n := eng.LiveVMs(); n != 0 {
		t.Fatalf("%d VMs live after run.end", n)
	}
}
