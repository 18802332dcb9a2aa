package codemode

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// Every loop ends with timeout at timeoutMs and leaves no VM running: the
// interrupt handler (or the stop listeners) stopped it rather than the
// watchdog abandoning it, which would leave it spinning in the background.
// A guest catch in the loop runs the prelude's Error.prepareStackTrace on
// every interrupt; that must not make the interrupt catchable.
func TestLoopsEndAtTheDeadlineWithoutAbandonedVMs(t *testing.T) {
	eng, err := engine.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	rt := New(eng, echoInvoker{}, Options{})
	defer rt.Close()
	rt.Prepare(protocol.PrepareParams{Run: "r", RunContext: protocol.RunContext{AgentID: "a", SessionID: "s", SessionKey: "k", SenderID: "x", Channel: "c"},
		CodeMode: json.RawMessage(`{"enabled":true,"timeoutMs":300}`), Tools: []protocol.ToolSpec{{Name: "echo", Description: "echo", Source: protocol.SourceOpenClaw, Owner: "core"}}})
	for _, code := range []string{
		`while (true) {}`,
		`const spin = () => Promise.resolve().then(spin); spin(); await new Promise(() => {});`,
		`return /^(a+)+$/.test("a".repeat(40) + "b");`,
		`await tools.call(ALL_TOOLS[0].id, {}); for (;;) {}`,
		`for (;;) { try { throw 1 } catch (e) {} }`,
		`for (;;) { try { null.x } catch (e) {} }`,
		`try { return 1 } finally { for (;;) {} }`,
		`const a = []; a.length = 4294967295; return a.sort().length;`,
	} {
		in, _ := json.Marshal(map[string]string{"code": code})
		start := time.Now()
		res, err := rt.Exec(context.Background(), "r", "c", in)
		took := time.Since(start)
		if err != nil || res.Status != result.StatusFailed || res.Code != result.CodeTimeout {
			t.Errorf("%s: got %+v, %v; want failed with timeout", code, res, err)
		}
		if took > 300*time.Millisecond+engine.Grace/2 {
			t.Errorf("%s: took %v, want about timeoutMs (300 ms)", code, took)
		}
		if n := eng.LiveVMs(); n != 0 {
			t.Errorf("%s: %d VMs still live after the cell ended: the VM was abandoned, not stopped", code, n)
		}
	}
}
