package codemode

import (
	"encoding/json"
	"regexp"
	"slices"
	"testing"

	"github.com/codemode-conformance/codemode/reference/catalog"
	"github.com/codemode-conformance/codemode/spec/result"
)

// TestReservedGlobalsCoverTheEngine: every global a cell's code can name,
// the own properties of QuickJS-NG's globalThis and of its prototypes after
// the prelude booted, is a name no callable takes (catalog.ReservedGlobal,
// spec/protocol.md §12.13): a tool's callable name never equals an existing
// global, so globalThis[callableName] is its handle. It fails when an engine
// or prelude update adds a global the reserved list misses.
func TestReservedGlobalsCoverTheEngine(t *testing.T) {
	for _, profile := range []string{"v1", "v2"} {
		rt, _ := queueRun(t, profile, `{"enabled":true}`)
		res := queueExec(t, rt, "g-"+profile, `const names = new Set();
for (let o = globalThis; o; o = Object.getPrototypeOf(o)) for (const n of Object.getOwnPropertyNames(o)) names.add(n);
return [...names];`)
		if res.Status != result.StatusCompleted {
			t.Fatalf("%s: the enumerating cell did not complete: %+v", profile, res)
		}
		var names []string
		if err := json.Unmarshal(res.Value, &names); err != nil {
			t.Fatalf("%s: cell value %s: %v", profile, res.Value, err)
		}
		ident := regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)
		var missing []string
		for _, n := range names {
			// echo is the run's one tool: its own async global (v2).
			if ident.MatchString(n) && n != "echo" && !catalog.ReservedGlobal(n) {
				missing = append(missing, n)
			}
		}
		slices.Sort(missing)
		if len(missing) > 0 {
			t.Errorf("%s: globals of a cell that catalog.reservedGlobals misses (a tool of that name would get it as its callable name): %q", profile, missing)
		}
		if len(names) < 50 {
			t.Errorf("%s: only %d globals enumerated, the enumeration is broken: %q", profile, len(names), names)
		}
	}
}
