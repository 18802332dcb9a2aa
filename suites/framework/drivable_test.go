package framework

import (
	"testing"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

func TestNotDrivableMatchesSurfaceOrRequirement(t *testing.T) {
	withInit(t, protocol.InitializeResult{NotDrivable: []protocol.NotDrivable{
		{Surface: protocol.SurfaceStats, Reason: "no counters"},
		{Requirement: "CM-RUN-05", Reason: "no cap"},
	}})
	for _, c := range []struct{ surface, id, want string }{
		{protocol.SurfaceStats, "", "runtime.stats: no counters"},
		{"", "CM-RUN-05", "CM-RUN-05: no cap"},
		{protocol.SurfacePolicy, "CM-RUN-01", ""},
	} {
		if got := notDrivable(c.surface, c.id); got != c.want {
			t.Errorf("notDrivable(%q, %q) = %q, want %q", c.surface, c.id, got, c.want)
		}
	}
}

func TestNotDrivableFeatureMatchesOnlyFeatureEntries(t *testing.T) {
	withInit(t, protocol.InitializeResult{NotDrivable: []protocol.NotDrivable{
		{Surface: protocol.SurfaceHooks, Reason: "no wiring"},
		{Feature: "mcp", Reason: "no MCP client"},
	}})
	for _, c := range []struct{ feature, want string }{
		{"mcp", "feature mcp: no MCP client"},
		{"hooks", ""}, // a surface entry is not a feature entry
		{"", ""},
	} {
		if got := notDrivableFeature(c.feature); got != c.want {
			t.Errorf("notDrivableFeature(%q) = %q, want %q", c.feature, got, c.want)
		}
	}
	if got := notDrivable("", ""); got != "" {
		t.Errorf("notDrivable(\"\", \"\") = %q: a feature entry must not match an empty surface or requirement", got)
	}
}

// withInit makes init the target's last initialize result for the rest of
// test t.
func withInit(t *testing.T, init protocol.InitializeResult) {
	tgtMu.Lock()
	old := lastInit
	lastInit = init
	tgtMu.Unlock()
	t.Cleanup(func() { tgtMu.Lock(); lastInit = old; tgtMu.Unlock() })
}
