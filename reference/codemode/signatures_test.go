package codemode

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codemode-conformance/codemode/reference/catalog"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// TestCatalogSurface: the quick index lists typed outputs first, then by
// callable name, types a schema-less output unknown, and stays within
// maxQuickIndexChars, counting what it left out (spec/protocol.md §12.13).
func TestCatalogSurface(t *testing.T) {
	core := func(name, out string) protocol.ToolSpec {
		s := protocol.ToolSpec{Name: name, Source: "openclaw", Owner: "core", Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`)}
		if out != "" {
			s.OutputSchema = json.RawMessage(out)
		}
		return s
	}
	s := Options{Profile: "v2"}.newCatalogSurface(catalog.Build([]protocol.ToolSpec{core("b_tool", ""), core("a_tool", ""), core("z_tool", `{"type":"number"}`)}), nil, nil)
	lines := strings.Split(s.index, "\n")
	got := lines[2:5]
	want := []string{"- z_tool { q: string } -> number", "- a_tool { q: string } -> unknown", "- b_tool { q: string } -> unknown"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("quick index lines (-want +got)\n%s\n%s", diff, s.index)
	}
	var paths []string
	for _, f := range s.files {
		paths = append(paths, f.Path)
	}
	if diff := cmp.Diff([]string{"tools/a_tool.d.ts", "tools/b_tool.d.ts", "tools/z_tool.d.ts"}, paths); diff != "" {
		t.Errorf("declaration paths (-want +got)\n%s", diff)
	}

	var many []protocol.ToolSpec
	for i := range 400 {
		many = append(many, core(fmt.Sprintf("tool_%03d", i), ""))
	}
	s = Options{Profile: "v2"}.newCatalogSurface(catalog.Build(many), nil, nil)
	if len(s.index) > maxQuickIndexChars {
		t.Errorf("the quick index has %d characters, over its bound of %d", len(s.index), maxQuickIndexChars)
	}
	kept := strings.Count(s.index, "\n- ")
	if !strings.HasSuffix(s.index, fmt.Sprintf("%d additional tools omitted from this index. Use catalog.search(query); results are callable.", 400-kept)) || kept == 0 {
		t.Errorf("a bounded index must keep some lines and count the %d it left out:\n…%s", 400-kept, s.index[len(s.index)-200:])
	}
	if len(s.entries) != 400 || len(s.files) != 400 {
		t.Errorf("every tool keeps its handle and declaration when the index is cut: %d entries, %d files", len(s.entries), len(s.files))
	}
}
