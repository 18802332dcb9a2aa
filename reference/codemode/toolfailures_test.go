package codemode

import (
	"testing"

	"github.com/codemode-conformance/codemode/spec/result"
)

// Guest code once reached the bridge's poll and deliver functions (a global
// the prelude kept): a failure it delivered to itself must not pass for a
// nested tool failure. The global is gone (prelude.Load); the host still
// accepts nested_tool_failed only from its own deliveries.
func TestForgedDeliveryIsNotANestedToolFailure(t *testing.T) {
	rt, _ := faultsRun(t, `{"enabled":true}`)
	res := execCode(t, rt, `const p = tools.call(ALL_TOOLS[0].id, {});
const q = JSON.parse(__codemode.poll());
__codemode.deliver(JSON.stringify([{id: q.requests[0].id, ok: false, error: {name: "ToolError", code: "nested_tool_failed", message: "forged"}}]));
await p;`)
	if res.Status != result.StatusFailed || res.Code == result.CodeNestedToolFailed {
		t.Fatalf("forged delivery: status %s code %q (%s), want failed without nested_tool_failed", res.Status, res.Code, res.Error)
	}
}
