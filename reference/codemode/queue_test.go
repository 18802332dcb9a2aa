package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-conformance/codemode/reference/bridge"
	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// queueInvoker answers nested calls with their input; a call whose input has
// hold: true waits until release is closed. It records every call.
type queueInvoker struct {
	release chan struct{}
	mu      sync.Mutex
	calls   []protocol.InvokeParams
	active  int
	maxSeen int
	// busyAtStart is, per tool name, how many other calls were in flight
	// when each of its calls arrived.
	busyAtStart map[string][]int
}

// sent returns a copy of the calls that reached the invoker so far, read
// under its lock (calls arrive on the bridge's goroutines).
func (g *queueInvoker) sent() []protocol.InvokeParams {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]protocol.InvokeParams(nil), g.calls...)
}

func (g *queueInvoker) Invoke(ctx context.Context, p protocol.InvokeParams) (json.RawMessage, error) {
	g.mu.Lock()
	g.calls = append(g.calls, p)
	if g.busyAtStart == nil {
		g.busyAtStart = map[string][]int{}
	}
	g.busyAtStart[p.Tool] = append(g.busyAtStart[p.Tool], g.active)
	g.active++
	g.maxSeen = max(g.maxSeen, g.active)
	g.mu.Unlock()
	defer func() { g.mu.Lock(); g.active--; g.mu.Unlock() }()
	var in struct{ Hold bool }
	_ = json.Unmarshal(p.Input, &in)
	if in.Hold {
		select {
		case <-g.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return p.Input, nil
}

func queueRun(t *testing.T, profile, codeMode string, tools ...protocol.ToolSpec) (*Runtime, *queueInvoker) {
	t.Helper()
	eng, err := engine.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	inv := &queueInvoker{release: make(chan struct{})}
	rt := New(eng, inv, Options{Profile: profile, DrainFraction: 0.2})
	t.Cleanup(rt.Close)
	if len(tools) == 0 {
		tools = []protocol.ToolSpec{{Name: "echo", Description: "echo", Source: protocol.SourceOpenClaw, Owner: "core"}}
	}
	res := rt.Prepare(protocol.PrepareParams{Run: "q", RunContext: protocol.RunContext{AgentID: "a", SessionID: "s", SessionKey: "k", SenderID: "x", Channel: "c"},
		CodeMode: json.RawMessage(codeMode), Tools: tools})
	if !res.CodeModeActive {
		t.Fatalf("prepare: %+v", res)
	}
	return rt, inv
}

func queueExec(t *testing.T, rt *Runtime, call, code string) result.Result {
	t.Helper()
	in, _ := json.Marshal(map[string]string{"code": `const echo = ALL_TOOLS[0].id; ` + code})
	res, err := rt.Exec(context.Background(), "q", call, in)
	if err != nil {
		t.Fatalf("exec %q: %v", code, err)
	}
	return res
}

// TestBridgeQueueByProfile: a Promise.all larger than maxPendingToolCalls
// fails with too_many_pending_tool_calls under v1 (CM-LIM-05) and completes
// under v2 without more than maxPendingToolCalls in flight (CM-NEST-05); a
// front beyond 128 queued fails with invalid_input and sends nothing.
func TestBridgeQueueByProfile(t *testing.T) {
	const cm = `{"enabled": true, "maxPendingToolCalls": 2}`
	batch := func(n int) string {
		return fmt.Sprintf(`return (await Promise.all(Array.from({length: %d}, (_, i) => tools.call(echo, {i})))).length;`, n)
	}
	rt, inv := queueRun(t, "v1", cm)
	if res := queueExec(t, rt, "c1", batch(5)); res.Status != result.StatusFailed || res.Code != result.CodeTooManyPendingToolCalls {
		t.Errorf("v1, 5 calls with maxPendingToolCalls 2: %+v, want failed too_many_pending_tool_calls", res)
	}
	if len(inv.sent()) != 0 {
		t.Errorf("v1 sent %d calls of a front that failed", len(inv.sent()))
	}
	rt, inv = queueRun(t, "v2", cm)
	if res := queueExec(t, rt, "c1", batch(2+bridge.MaxQueuedRequests)); res.Status != result.StatusCompleted || string(res.Value) != fmt.Sprint(2+bridge.MaxQueuedRequests) {
		t.Errorf("v2, %d calls: %+v, want completed with the count", 2+bridge.MaxQueuedRequests, res)
	}
	if inv.maxSeen > 2 {
		t.Errorf("v2 had %d calls in flight, maxPendingToolCalls is 2", inv.maxSeen)
	}
	sent := len(inv.sent())
	res := queueExec(t, rt, "c2", batch(2+bridge.MaxQueuedRequests+1))
	if res.Status != result.StatusFailed || res.Code != result.CodeInvalidInput || !strings.Contains(res.Error, "await smaller batches") {
		t.Errorf("v2, one call beyond the queue: %+v, want failed invalid_input with guidance", res)
	}
	if len(inv.sent()) != sent {
		t.Errorf("v2 sent %d calls of a front that overflowed the queue", len(inv.sent())-sent)
	}
}

// TestQueuedCallsSurviveSuspension: calls still queued when the cell
// suspends are sent after wait, once each, in request order, with their
// original request ids and inputs (CM-NEST-14).
func TestQueuedCallsSurviveSuspension(t *testing.T) {
	rt, inv := queueRun(t, "v2", `{"enabled": true, "maxPendingToolCalls": 1, "timeoutMs": 1000}`)
	code := `return (await Promise.all([tools.call(echo, {hold: true, tag: "a"}), tools.call(echo, {tag: "b"}), tools.call(echo, {tag: "c"})])).map((x) => x.tag);`
	res := queueExec(t, rt, "exec-1", code)
	if res.Status != result.StatusWaiting {
		t.Fatalf("exec: %+v, want waiting on the held call", res)
	}
	if len(inv.sent()) != 1 {
		t.Fatalf("%d calls sent before the held one settled, want 1 (maxPendingToolCalls 1)", len(inv.sent()))
	}
	close(inv.release)
	cell := res.RunID
	in, _ := json.Marshal(map[string]string{"runId": cell})
	res, err := rt.Wait(context.Background(), "q", "wait-1", in)
	if err != nil || res.Status != result.StatusCompleted || string(res.Value) != `["a","b","c"]` {
		t.Fatalf("wait: %+v, %v, want completed [a b c]", res, err)
	}
	var got []string
	for _, c := range inv.sent() {
		got = append(got, fmt.Sprintf("%s %s %s", c.ToolCallID, c.ParentToolCallID, c.Input))
	}
	execIn, _ := json.Marshal(map[string]string{"code": `const echo = ALL_TOOLS[0].id; ` + code})
	prefix := rt.replayIDOf("q", "exec-1", "", execIn) // v2 declares nested-activity: ids from the replay identity (CM-NEST-18)
	want := []string{
		prefix + `/call-001 exec-1 {"hold":true,"tag":"a"}`,
		prefix + `/call-002 exec-1 {"tag":"b"}`,
		prefix + `/call-003 exec-1 {"tag":"c"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls sent:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSequentialCallsNeverOverlap: a sequential tool's calls are sent one
// at a time, and never beside a parallel call (CM-NEST-06).
func TestSequentialCallsNeverOverlap(t *testing.T) {
	rt, inv := queueRun(t, "v2", `{"enabled": true, "maxPendingToolCalls": 8}`,
		protocol.ToolSpec{Name: "seq", Description: "seq", Source: protocol.SourceOpenClaw, Owner: "core", ExecutionMode: protocol.ExecutionSequential})
	res := queueExec(t, rt, "c1", `return (await Promise.all(Array.from({length: 6}, (_, i) => tools.call(echo, {i})))).length;`)
	if res.Status != result.StatusCompleted || inv.maxSeen != 1 {
		t.Errorf("six calls of a sequential tool: %+v with %d in flight at once, want completed with 1", res, inv.maxSeen)
	}
}

// TestQueuedInputsCountAgainstMemory: the host holds queued inputs for the
// guest, so their bytes are bounded by memoryLimitBytes (CM-NEST-16): a
// guest cannot park gigabytes on the host through the queue.
func TestQueuedInputsCountAgainstMemory(t *testing.T) {
	rt, inv := queueRun(t, "v2", `{"enabled": true, "maxPendingToolCalls": 1, "memoryLimitBytes": 16777216, "maxSnapshotBytes": 50331648}`)
	// Each front makes 3 calls with 1 MiB inputs, then yields: the poll took
	// them out of the VM, so the guest never holds more than one front.
	res := queueExec(t, rt, "c1", `const big = "x".repeat(1 << 20);
for (let f = 0; f < 8; f++) { for (let i = 0; i < 3; i++) tools.call(echo, {hold: true, big}).catch(() => {}); await yield_control(); }
return "unbounded";`)
	for i := 0; res.Status == result.StatusWaiting && i < 10; i++ {
		in, _ := json.Marshal(map[string]string{"runId": res.RunID})
		var err error
		if res, err = rt.Wait(context.Background(), "q", fmt.Sprint("w", i), in); err != nil {
			t.Fatal(err)
		}
	}
	if res.Status != result.StatusFailed || res.Code != result.CodeMemoryLimitExceeded {
		t.Errorf("24 MiB of queued inputs with memoryLimitBytes 16 MiB: %+v, want failed memory_limit_exceeded", res)
	} else if !strings.Contains(res.Error, "queued nested tool calls") {
		t.Errorf("failed for another reason than the queue bound: %s", res.Error)
	}
	if len(inv.sent()) > 1 {
		t.Errorf("%d calls sent, want at most maxPendingToolCalls (1)", len(inv.sent()))
	}
}

// TestQueuedCallsFollowRunUpdate: a call waiting in the bridge queue is
// resolved in the run's catalog when it is sent, not when it was queued
// (CM-NEST-16, CM-RES-07): after run.update restrictTo removed its tool it
// rejects in the guest as an unknown tool and is never sent; after
// replaceTools redeclared its tool sequential and network-controlled, it is
// sent only with nothing else in flight and marks the cell networkContent.
func TestQueuedCallsFollowRunUpdate(t *testing.T) {
	echo := protocol.ToolSpec{Name: "echo", Description: "echo", Source: protocol.SourceOpenClaw, Owner: "core"}
	other := protocol.ToolSpec{Name: "wipe", Description: "wipe", Source: protocol.SourceOpenClaw, Owner: "core"}
	resume := func(t *testing.T, rt *Runtime, inv *queueInvoker, cell string) result.Result {
		t.Helper()
		close(inv.release)
		in, _ := json.Marshal(map[string]string{"runId": cell})
		res, err := rt.Wait(context.Background(), "q", "wait-1", in)
		if err != nil {
			t.Fatalf("wait: %v", err)
		}
		return res
	}
	t.Run("restrictTo", func(t *testing.T) {
		rt, inv := queueRun(t, "v2", `{"enabled": true, "maxPendingToolCalls": 1, "timeoutMs": 1000}`, echo, other)
		res := queueExec(t, rt, "exec-1", `const wipe = ALL_TOOLS.find((t) => t.name === "wipe").id;
const held = tools.call(echo, {hold: true});
const out = [0, 1].map((n) => tools.call(wipe, {n}).then(() => "called", (e) => "refused: " + e.message));
await held;
return await Promise.all(out);`)
		if res.Status != result.StatusWaiting {
			t.Fatalf("exec: %+v, want waiting on the held call with two wipe calls queued", res)
		}
		if err := rt.Update(protocol.UpdateParams{Run: "q", RestrictTo: []string{"echo"}}); err != nil {
			t.Fatal(err)
		}
		res = resume(t, rt, inv, res.RunID)
		refused := `"refused: Unknown tool id \"openclaw:core:wipe\". Use tools.search(query) or ALL_TOOLS to find tool ids."`
		if res.Status != result.StatusCompleted || string(res.Value) != "["+refused+","+refused+"]" {
			t.Errorf("wait: %s %s %s, want completed with both queued wipe calls refused as unknown tools: [%s,%s]", res.Status, res.Value, res.Error, refused, refused)
		}
		for _, c := range inv.sent() {
			if c.Tool == "wipe" {
				t.Errorf("a queued call of wipe was sent after run.update removed it: %+v", c)
			}
		}
	})
	t.Run("replaceTools", func(t *testing.T) {
		rt, inv := queueRun(t, "v2", `{"enabled": true, "maxPendingToolCalls": 2, "timeoutMs": 1000}`, echo, other)
		res := queueExec(t, rt, "exec-1", `const wipe = ALL_TOOLS.find((t) => t.name === "wipe").id;
const held = [tools.call(echo, {hold: true}), tools.call(echo, {hold: true})];
const out = [0, 1, 2].map((n) => tools.call(wipe, {n}));
await Promise.all(held);
return (await Promise.all(out)).length;`)
		if res.Status != result.StatusWaiting {
			t.Fatalf("exec: %+v, want waiting on the held calls with three wipe calls queued", res)
		}
		redeclared := other
		redeclared.ExecutionMode = protocol.ExecutionSequential
		redeclared.ResultContentSource = protocol.ContentSourceNetwork
		if err := rt.Update(protocol.UpdateParams{Run: "q", ReplaceTools: []protocol.ToolSpec{echo, redeclared}}); err != nil {
			t.Fatal(err)
		}
		res = resume(t, rt, inv, res.RunID)
		if res.Status != result.StatusCompleted || string(res.Value) != "3" {
			t.Fatalf("wait: %s %s %s, want completed 3", res.Status, res.Value, res.Error)
		}
		inv.mu.Lock()
		busy := inv.busyAtStart["wipe"]
		inv.mu.Unlock()
		if fmt.Sprint(busy) != "[0 0 0]" {
			t.Errorf("calls in flight when each queued wipe call was sent: %v, want [0 0 0]: replaceTools made wipe sequential before they left", busy)
		}
		if !res.NetworkContent {
			t.Errorf("the cell called wipe after replaceTools made it network-controlled, so it must be marked networkContent: %s %s", res.Status, res.Value)
		}
	})
}
