package codemode

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/reference/bridge"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// nestInvoker answers a nested call {d} with arrays nested d deep and
// counts the calls that reached it.
type nestInvoker struct{ calls atomic.Int64 }

func (n *nestInvoker) Invoke(_ context.Context, p protocol.InvokeParams) (json.RawMessage, error) {
	n.calls.Add(1)
	var in struct{ D int }
	_ = json.Unmarshal(p.Input, &in)
	return json.RawMessage(strings.Repeat("[", in.D) + strings.Repeat("]", in.D)), nil
}

// Deeply nested JSON fails fast and explicitly in both directions (issue 11:
// a tool result 4,500 deep crashed the VM, 4,140 deep spun until timeoutMs,
// a guest value deeper than 64 was cut to "[MaxDepth]" without a word).
func TestBridgeDepthFailsFastBothWays(t *testing.T) {
	eng := testEngine(t)
	inv := &nestInvoker{}
	rt := sessionRuntime(t, eng, inv, Options{}, `{"enabled":true,"timeoutMs":10000}`)
	// depthOf measures what arrived; a rejection is caught and reported.
	const probe = `try { let x = await tools.call(ALL_TOOLS[0].id, {d: %d}), d = 0; while (Array.isArray(x) && x.length) { x = x[0]; d++ } return "depth " + (d + 1); } catch (e) { return e.name + "/" + e.code + ": " + e.message; }`
	for _, c := range []struct {
		depth int
		want  string
	}{
		{bridge.MaxBridgeDepth, "depth 64"},
		{bridge.MaxBridgeDepth + 1, "ToolError/nested_tool_failed: the tool result is nested deeper than the bridge limit of 64"},
		{4140, "ToolError/nested_tool_failed: the tool result is nested deeper"},
		{4500, "ToolError/nested_tool_failed: the tool result is nested deeper"},
		{100000, "ToolError/nested_tool_failed: the tool result is nested deeper"},
	} {
		start := time.Now()
		res := execIn(t, rt, strings.Replace(probe, "%d", itoa(c.depth), 1))
		took := time.Since(start)
		var got string
		_ = json.Unmarshal(res.Value, &got)
		if res.Status != result.StatusCompleted || !strings.HasPrefix(got, c.want) {
			t.Errorf("a tool result nested %d deep: %+v (value %q); want a completed cell returning %q…", c.depth, res, got, c.want)
		}
		if took > 3*time.Second {
			t.Errorf("a tool result nested %d deep took %v; it must fail fast", c.depth, took)
		}
	}
	calls := inv.calls.Load()
	for _, c := range []struct{ name, code, want string }{
		{"return", `let x = []; for (let i = 0; i < 100000; i++) x = [x]; return x;`, "RangeError: the value is nested deeper than the bridge limit of 64"},
		{"return 65", `let x = []; for (let i = 1; i < 65; i++) x = [x]; return x;`, "RangeError: the value is nested deeper"},
		{"text", `let x = {}; for (let i = 0; i < 100; i++) x = {x}; try { text(x) } catch (e) { return e.name + ": " + e.message } return "no error";`, "RangeError: the value is nested deeper"},
		{"json", `let x = {}; for (let i = 0; i < 100; i++) x = {x}; try { json(x) } catch (e) { return e.name + ": " + e.message } return "no error";`, "RangeError: the value is nested deeper"},
		{"input", `let x = []; for (let i = 0; i < 100; i++) x = [x]; try { await tools.call(ALL_TOOLS[0].id, {x}) } catch (e) { return e.name + "/" + e.code + ": " + e.message } return "no error";`, "ToolError/invalid_input: the value is nested deeper"},
	} {
		res := execIn(t, rt, c.code)
		var got string
		if res.Status == result.StatusCompleted {
			_ = json.Unmarshal(res.Value, &got)
		} else {
			got = res.Error
		}
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%s of a guest value nested too deep: %+v (%q); want %q…", c.name, res, got, c.want)
		}
	}
	if n := inv.calls.Load() - calls; n != 0 {
		t.Errorf("%d tool calls with an input nested too deep reached the tool", n)
	}
	if res := execIn(t, rt, `let x = [1]; for (let i = 1; i < 64; i++) x = [x]; return JSON.stringify(x).length;`); res.Status != result.StatusCompleted {
		t.Errorf("the runtime must keep serving: %+v", res)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
