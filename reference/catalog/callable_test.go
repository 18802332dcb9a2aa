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

// TestCallableNamesStayAcrossUpdates: a tool that stays in the catalog keeps
// its callable name when a run.update adds a tool of the same name, which
// gets the suffixed name instead; at prepare a client tool wins the bare
// name, as in OpenClaw 2026.9.6 (spec/protocol.md §12.13, adversarial
// finding 6).
func TestCallableNamesStayAcrossUpdates(t *testing.T) {
	core := protocol.ToolSpec{Name: "echo", Source: protocol.SourceOpenClaw, Owner: "core"}
	plugin := protocol.ToolSpec{Name: "echo", Source: protocol.SourcePlugin, Owner: "p"}
	client := protocol.ToolSpec{Name: "echo", Source: protocol.SourceClient, Owner: "app"}
	other := protocol.ToolSpec{Name: "lookup", Source: protocol.SourceOpenClaw, Owner: "core"}

	before := Build([]protocol.ToolSpec{core, other}).CallableNames()
	if before["openclaw:core:echo"] != "echo" {
		t.Fatalf("the core tool must be named echo at prepare: %v", before)
	}
	// attachClientTools: the client tool joins; the core tool stays.
	after := Build([]protocol.ToolSpec{core, other, client}).CallableNamesKeeping(before)
	if after["openclaw:core:echo"] != "echo" || after["openclaw:core:lookup"] != "lookup" {
		t.Errorf("tools that stay must keep their callable names across run.update: before %v, after %v", before, after)
	}
	if n := after["client:app:echo"]; !strings.HasPrefix(n, "echo_") || len(n) < len("echo_")+8 {
		t.Errorf("the attached client tool must get the suffixed name, not take echo: %v", after)
	}
	// A restriction that removes the core tool frees its name for the next
	// surface only: the client tool keeps the name it had.
	restricted := Build([]protocol.ToolSpec{client}).CallableNamesKeeping(after)
	if restricted["client:app:echo"] != after["client:app:echo"] {
		t.Errorf("the client tool must keep %q after a restriction: %v", after["client:app:echo"], restricted)
	}
	// A kept name that became reserved (a namespace global) is given up.
	if got := Build([]protocol.ToolSpec{core}).CallableNamesKeeping(before, "echo"); got["openclaw:core:echo"] == "echo" {
		t.Errorf("a kept name must still avoid the reserved names: %v", got)
	}

	// At prepare a client tool wins the bare name over the other sources,
	// whatever the order of the catalog ids.
	prep := Build([]protocol.ToolSpec{plugin, core, client}).CallableNames()
	if prep["client:app:echo"] != "echo" {
		t.Errorf("at prepare the client tool must win the bare name echo (OpenClaw's selectEffectiveEntries): %v", prep)
	}
	if prep["openclaw:core:echo"] == "echo" || prep["plugin:p:echo"] == "echo" || prep["openclaw:core:echo"] == prep["plugin:p:echo"] {
		t.Errorf("the other echo tools must get distinct suffixed names: %v", prep)
	}
}
