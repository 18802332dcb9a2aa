package catalog

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// TestBuildDuplicateIDs: tools of one id get ~2, ~3, … in (source, owner,
// name) order; a tool whose own name is such a suffixed id, sorting after
// them, gets a suffix of its own.
func TestBuildDuplicateIDs(t *testing.T) {
	tool := func(name, desc string) protocol.ToolSpec {
		return protocol.ToolSpec{Name: name, Source: "plugin", Owner: "p", Description: desc}
	}
	c := Build([]protocol.ToolSpec{tool("x", "1"), tool("x~3", "literal"), tool("x", "2"), tool("x", "3"), tool("y", "1")})
	got := map[string]string{}
	for _, e := range c.Tools {
		got[e.ID] = e.Spec.Name + "/" + e.Spec.Description
	}
	want := map[string]string{
		"plugin:p:x": "x/1", "plugin:p:x~2": "x/2", "plugin:p:x~3": "x/3",
		"plugin:p:x~3~2": "x~3/literal", "plugin:p:y": "y/1",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("catalog ids of duplicate tools (-want +got):\n%s", d)
	}
	for id := range want {
		if e, ok := c.Lookup(id); !ok || e.ID != id {
			t.Errorf("Lookup(%q) = %v, %v: want the entry of that id", id, e, ok)
		}
	}
}

// BenchmarkBuildDuplicates builds a catalog of 20000 tools of one id: linear
// in the tool count (a per-id suffix counter), where probing every suffix
// from ~2 took minutes (adversarial finding 8).
func BenchmarkBuildDuplicates(b *testing.B) {
	specs := make([]protocol.ToolSpec, 20000)
	for i := range specs {
		specs[i] = protocol.ToolSpec{Name: "dup", Source: "client", Owner: "app", Description: fmt.Sprint(i)}
	}
	for b.Loop() {
		c := Build(specs)
		if len(c.Tools) != len(specs) {
			b.Fatalf("catalogued %d tools, want %d", len(c.Tools), len(specs))
		}
	}
}
