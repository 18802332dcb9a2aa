package framework

import (
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/google/go-cmp/cmp"
)

// callable follows protocol.md §5.2–5.4: allow/deny entries match the name,
// the owner, "source:owner" or "source:owner:name"; deny wins; a present
// empty allowlist allows nothing; raw and disableTools leave no tools;
// control tools and mcp tools are never callable from guest code.
func TestCallable(t *testing.T) {
	declared := []protocol.ToolSpec{
		{Name: "weather", Source: "plugin", Owner: "forecast"},
		{Name: "echo", Source: "openclaw", Owner: "core"},
		{Name: "exec", Source: "openclaw", Owner: "core"},
		{Name: "exec", Source: "plugin", Owner: "shell"},
		{Name: "tool_call", Source: "openclaw", Owner: "core"},
		{Name: "create_issue", Source: "mcp", Owner: "github"},
	}
	weather := protocol.ToolSpec{Name: "weather", Source: "plugin", Owner: "forecast"}
	for _, c := range []struct {
		name   string
		prep   protocol.PrepareParams
		tool   protocol.ToolSpec
		reason string // "" = callable
		reqs   []string
	}{
		{name: "no policy", tool: weather},
		{name: "allow absent, unrelated deny", prep: protocol.PrepareParams{Policy: &protocol.Policy{Deny: []string{"echo"}}}, tool: weather},
		{name: "allow by name", prep: protocol.PrepareParams{Policy: &protocol.Policy{Allow: []string{"weather"}}}, tool: weather},
		{name: "allow by owner", prep: protocol.PrepareParams{Policy: &protocol.Policy{Allow: []string{"forecast"}}}, tool: weather},
		{name: "allow by source:owner", prep: protocol.PrepareParams{Policy: &protocol.Policy{Allow: []string{"plugin:forecast"}}}, tool: weather},
		{name: "allow by full id", prep: protocol.PrepareParams{Policy: &protocol.Policy{Allow: []string{"plugin:forecast:weather"}}}, tool: weather},
		{name: "not in allowlist", prep: protocol.PrepareParams{Policy: &protocol.Policy{Allow: []string{"echo", "plugin:other"}}}, tool: weather,
			reason: `no entry of the run's allowlist ["echo" "plugin:other"] matches it`, reqs: []string{"CM-GUEST-05", "CM-ACT-04"}},
		{name: "empty allowlist", prep: protocol.PrepareParams{Policy: &protocol.Policy{Allow: []string{}}}, tool: weather,
			reason: `the run's policy has "allow": [], which allows no tool`, reqs: []string{"CM-GUEST-05", "CM-ACT-03", "CM-ACT-04"}},
		{name: "deny by owner wins over allow by name", prep: protocol.PrepareParams{Policy: &protocol.Policy{Allow: []string{"weather"}, Deny: []string{"forecast"}}}, tool: weather,
			reason: `the run's policy denies it (deny entry "forecast")`, reqs: []string{"CM-GUEST-05", "CM-ACT-04"}},
		{name: "deny by full id", prep: protocol.PrepareParams{Policy: &protocol.Policy{Deny: []string{"plugin:forecast:weather"}}}, tool: weather,
			reason: `deny entry "plugin:forecast:weather"`, reqs: []string{"CM-GUEST-05", "CM-ACT-04"}},
		{name: "deny of a name prefix does not match", prep: protocol.PrepareParams{Policy: &protocol.Policy{Deny: []string{"weath", "plugin:fore"}}}, tool: weather},
		{name: "disableTools", prep: protocol.PrepareParams{DisableTools: true}, tool: weather,
			reason: "disableTools: true", reqs: []string{"CM-ACT-03"}},
		{name: "raw", prep: protocol.PrepareParams{Raw: true}, tool: weather,
			reason: "raw model call", reqs: []string{"CM-ACT-03"}},
		{name: "undeclared", tool: protocol.ToolSpec{Name: "weather", Source: "plugin", Owner: "other"},
			reason: "no tool plugin:other:weather was declared", reqs: []string{"CM-ACT-05"}},
		{name: "the core shell exec is catalogued", tool: protocol.ToolSpec{Name: "exec", Source: "openclaw", Owner: "core"}},
		{name: "another exec is a control tool", tool: protocol.ToolSpec{Name: "exec", Source: "plugin", Owner: "shell"},
			reason: `"exec" is a code mode control tool`, reqs: []string{"CM-CAT-03"}},
		{name: "tool_call is a control tool", tool: protocol.ToolSpec{Name: "tool_call", Source: "openclaw", Owner: "core"},
			reason: `"tool_call" is a code mode control tool`, reqs: []string{"CM-CAT-03"}},
		{name: "mcp", tool: protocol.ToolSpec{Name: "create_issue", Source: "mcp", Owner: "github"},
			reason: "source mcp", reqs: []string{"CM-CAT-05"}},
	} {
		c.prep.Tools = declared
		why, reqs := callable(c.prep, c.tool.Source, c.tool.Owner, c.tool.Name)
		if c.reason == "" && why != "" || c.reason != "" && !strings.Contains(why, c.reason) {
			t.Errorf("%s: callable = %q, want a reason containing %q", c.name, why, c.reason)
		}
		if d := cmp.Diff(c.reqs, reqs); d != "" {
			t.Errorf("%s: requirements (-want +got):\n%s", c.name, d)
		}
	}
}
