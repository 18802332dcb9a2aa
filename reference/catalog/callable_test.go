package catalog

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// TestCallableNames: identifier names are kept, the rest normalised,
// reserved and taken names suffixed with the id's digest; every name is a
// unique identifier, MCP tools have none (spec/protocol.md §12.13).
func TestCallableNames(t *testing.T) {
	tool := func(source, owner, name string) protocol.ToolSpec {
		return protocol.ToolSpec{Name: name, Source: source, Owner: owner}
	}
	c := Build([]protocol.ToolSpec{
		tool("openclaw", "core", "lookup_order"),
		tool("openclaw", "core", "get-weather"),
		tool("plugin", "mail", "get_weather"),
		tool("openclaw", "core", "2fa"),
		tool("openclaw", "core", "delete"),
		tool("openclaw", "core", "tools"),
		tool("plugin", "a", "lookup"),
		tool("plugin", "b", "lookup"),
		tool("mcp", "docs", "search"),
		tool("plugin", "x", "Issues"),
	})
	got := c.CallableNames("Issues")
	ident := regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)
	seen := map[string]bool{}
	for id, n := range got {
		if !ident.MatchString(n) || seen[n] {
			t.Errorf("%s: callable name %q is not a unique identifier", id, n)
		}
		seen[n] = true
	}
	want := map[string]string{
		"openclaw:core:lookup_order": "lookup_order",
		"plugin:mail:get_weather":    "get_weather",
		"openclaw:core:2fa":          "tool_2fa",
		"plugin:a:lookup":            "lookup",
	}
	for id, n := range want {
		if got[id] != n {
			t.Errorf("%s: callable name %q, want %q", id, got[id], n)
		}
	}
	for id, base := range map[string]string{"openclaw:core:get-weather": "get_weather_", "openclaw:core:delete": "delete_",
		"openclaw:core:tools": "tools_", "plugin:b:lookup": "lookup_", "plugin:x:Issues": "Issues_"} {
		if !strings.HasPrefix(got[id], base) || len(got[id]) < len(base)+8 {
			t.Errorf("%s: callable name %q, want %s plus a digest", id, got[id], base)
		}
	}
	if _, ok := got["mcp:docs:search"]; ok {
		t.Errorf("an MCP tool must have no callable name: %v", got)
	}
	if diff := cmp.Diff(got, c.CallableNames("Issues")); diff != "" {
		t.Errorf("callable names must be deterministic (-first +second)\n%s", diff)
	}
}
