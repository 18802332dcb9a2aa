package corpus

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// DeniedTool is the name of the "denied" fixture: it is in the run's
// run.prepare tools, but the run's policy denies it, so guest code must not
// reach it by any id (CM-GUEST-05).
const DeniedTool = "wipe_disk"

// MaxDeep bounds the depth the deep fixture returns: the harness sends the
// result inside a JSON-RPC response, and Go's JSON encoder refuses values
// nested 10000 deep or more (the call would never be answered).
const MaxDeep = 9000

// fixtures are the tools a case may name in tools:, by name. echo, add,
// slow, fail and big are fakes/tools' (tools.Standard); deep and denied
// exist for the corpus.
var fixtures = map[string]func() tools.Tool{
	"echo": tools.Echo,
	"add":  tools.Add,
	"slow": tools.Slow,
	"fail": tools.Fail,
	"big":  tools.Big,
	// deep returns arrays nested depth deep ({depth}, at most MaxDeep):
	// deeply nested JSON from host to guest (CM-LIM-04).
	"deep": func() tools.Tool {
		return tools.Core("deep", "Return JSON arrays nested depth deep.",
			json.RawMessage(`{"type":"object","properties":{"depth":{"type":"integer"}},"required":["depth"]}`),
			func(_ context.Context, in json.RawMessage) (any, error) {
				var v struct{ Depth int }
				_ = json.Unmarshal(in, &v)
				v.Depth = max(1, min(v.Depth, MaxDeep))
				return json.RawMessage(strings.Repeat("[", v.Depth) + strings.Repeat("]", v.Depth)), nil
			})
	},
	// denied is a plugin tool the run's policy denies (DeniedTool).
	"denied": func() tools.Tool {
		return tools.Named(protocol.SourcePlugin, "vault", DeniedTool, "Erase the disk (denied by policy).")
	},
}

// FixtureNames lists the names tools: may use, sorted.
func FixtureNames() []string {
	out := make([]string, 0, len(fixtures))
	for n := range fixtures {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Fixtures are fresh fixture tools for the case's tools: list, in order;
// echo alone when the list is empty (a run with an empty catalog does not
// activate code mode).
func (c Case) Fixtures() []tools.Tool {
	if len(c.Tools) == 0 {
		return []tools.Tool{tools.Echo()}
	}
	out := make([]tools.Tool, 0, len(c.Tools))
	for _, n := range c.Tools {
		out = append(out, fixtures[n]())
	}
	return out
}

// Policy is the run's policy: nil unless the case uses the denied fixture,
// whose tool it denies.
func (c Case) Policy() *protocol.Policy {
	if !contains(c.Tools, "denied") {
		return nil
	}
	return &protocol.Policy{Deny: []string{DeniedTool}}
}
