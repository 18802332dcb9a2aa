package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// manyTools is a catalog of n plugin tools of about 260 bytes of JSON each.
func manyTools(n int) []protocol.ToolSpec {
	out := make([]protocol.ToolSpec, n)
	for i := range out {
		out[i] = protocol.ToolSpec{Name: fmt.Sprintf("tool_%d", i), Description: "Does a thing with the given city and returns the weather there.", Source: protocol.SourcePlugin, Owner: "forecast",
			Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}
	}
	return out
}

// A cell whose VM cannot boot the run's catalog fails with an error that
// says so and names the catalog's size, not one that blames the guest
// (issue 28 N3, N12): out of memory booting a catalog too big for
// memoryLimitBytes, and the deadline passing while it boots. Under v1 the
// catalog stays on the host (TestCatalogScaleV1); generation 2's surface
// still makes a global and a handle per tool at boot (MaxCallableGlobals).
func TestBootFailureNamesTheSetup(t *testing.T) {
	eng, err := engine.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	rt := New(eng, echoInvoker{}, Options{Profile: "v2"})
	t.Cleanup(rt.Close)
	for _, tc := range []struct {
		name, codeMode string
		tools          int
		code           result.ErrorCode
		want           string
	}{
		{"out of memory", `{"enabled":true,"memoryLimitBytes":4194304}`, MaxCallableGlobals, result.CodeMemoryLimitExceeded, fmt.Sprintf("the run's catalog of %d tools does not fit in memoryLimitBytes (4194304 bytes)", MaxCallableGlobals)},
		{"deadline", `{"enabled":true,"timeoutMs":100}`, MaxCallableGlobals, result.CodeTimeout, fmt.Sprintf("while its VM was being set up with the prelude and the run's catalog of %d tools, before any guest code ran", MaxCallableGlobals)},
	} {
		// A warm-up cell of the same limits: the VM template is booted
		// before the cell that is judged, so its deadline falls in the
		// catalog's boot.
		warm := rt.Prepare(protocol.PrepareParams{Run: tc.name + "-warm", RunContext: protocol.RunContext{AgentID: "a", SessionID: "s", SessionKey: "k", SenderID: "x", Channel: "c"},
			CodeMode: json.RawMessage(tc.codeMode), Tools: manyTools(1)})
		if !warm.CodeModeActive {
			t.Fatalf("%s: warm-up prepare: %+v", tc.name, warm)
		}
		in, _ := json.Marshal(map[string]string{"code": "return 1"})
		// Under load even a one-tool cell can miss a 100 ms deadline in its
		// boot: the warm-up only has to boot the template, so it may retry.
		for try := 1; ; try++ {
			out, err := rt.Exec(context.Background(), tc.name+"-warm", "call", in)
			if err == nil && out.Status == result.StatusCompleted {
				break
			}
			if try == 20 {
				t.Fatalf("%s: warm-up cell: %+v, %v", tc.name, out, err)
			}
		}
		res := rt.Prepare(protocol.PrepareParams{Run: tc.name, RunContext: protocol.RunContext{AgentID: "a", SessionID: "s", SessionKey: "k", SenderID: "x", Channel: "c"},
			CodeMode: json.RawMessage(tc.codeMode), Tools: manyTools(tc.tools)})
		if !res.CodeModeActive {
			t.Fatalf("%s: prepare: %+v", tc.name, res)
		}
		out, err := rt.Exec(context.Background(), tc.name, "call", in)
		if err != nil || out.Status != result.StatusFailed || out.Code != tc.code || !strings.Contains(out.Error, tc.want) {
			t.Errorf("%s: %+v, %v; want %s saying %q", tc.name, out, err, tc.code, tc.want)
		}
	}
}
