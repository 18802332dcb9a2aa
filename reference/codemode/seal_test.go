package codemode

import (
	"encoding/json"
	"testing"

	"github.com/codemode-conformance/codemode/spec/result"
)

// A call made after the cell's value is determined is never dispatched and
// the cell does not wait for it (CM-NEST-23); calls made before it are
// (CM-NEST-09). Each cell starts exactly one call before its return.
func TestCallsAfterTheValueAreNeverDispatched(t *testing.T) {
	rt, inv := faultsRun(t, `{"enabled":true}`)
	for _, code := range []string{
		`const p = tools.call(ALL_TOOLS[0].id, {}); p.then(() => tools.call(ALL_TOOLS[0].id, {n: 2})); return 1;`,
		`tools.call(ALL_TOOLS[0].id, {}).finally(() => tools.call(ALL_TOOLS[0].id, {n: 2})); return 1;`,
		`tools.call(ALL_TOOLS[0].id, {}); Promise.resolve().then(() => tools.call(ALL_TOOLS[0].id, {n: 2})); return 1;`,
		`(async () => { await tools.call(ALL_TOOLS[0].id, {}); await null; await tools.call(ALL_TOOLS[0].id, {n: 2}); })(); return 1;`,
		`await tools.call(ALL_TOOLS[0].id, {}); queueMicrotask(() => tools.call(ALL_TOOLS[0].id, {n: 2})); return 1;`,
	} {
		before := inv.n.Load()
		res := execCode(t, rt, code)
		if res.Status != result.StatusCompleted || string(res.Value) != "1" {
			t.Errorf("%s: %s %s (%s), want completed 1", code, res.Status, res.Value, res.Error)
		}
		if n := inv.n.Load() - before; n != 1 {
			b, _ := json.Marshal(res.Telemetry)
			t.Errorf("%s: %d nested calls dispatched, want 1 (the one made before the return)\n%s", code, n, b)
		}
	}
}
