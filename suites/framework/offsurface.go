package framework

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// SurfaceWithoutCodeMode prepares a run like o but with neither the runtime's
// nor the agent's tools.codeMode set (code mode is off by default, 000
// [Come abilitarla]) and returns the model-visible tools the target reports
// for it: the target's own surface without code mode. It is what CM-ACT-01
// ("exactly as without code mode") and the code-mode-off specs compare
// against, rather than the run's ToolSpecs: a target may show its tools
// through another surface when code mode is off (OpenClaw 2026.9.6 shows Tool
// Search), and may add tools of its own.
//
// The baseline is checked before it is used: the run must not fail and must
// leave the given tools' exposure unchanged (000 [Checklist] "lascia
// invariata l'esposizione degli strumenti esistenti"; offSurfaceChanged).
// Both are CM-ACT-01's: that spec fails on them, every other spec is blocked
// by CM-ACT-01. That the default leaves code mode off is CM-CFG-01's charge
// (other specs are blocked by CM-CFG-01).
func SurfaceWithoutCodeMode(ctx context.Context, o RunOptions) []protocol.ModelTool {
	ginkgo.GinkgoHelper()
	o.CodeMode, o.AgentCodeMode, o.ID = nil, nil, ""
	r := NewRun(ctx, o)
	act, cfg := ownedBy("CM-ACT-01"), ownedBy("CM-CFG-01")
	act.Expect(r.Prepared.Failure).To(gomega.BeNil(), "a run without tools.codeMode must not fail: %+v", r.Prepared.Failure)
	cfg.Expect(r.Prepared.CodeModeActive).To(gomega.BeFalse(), "code mode must be off by default (a run without tools.codeMode is the surface without code mode)")
	if o.Policy == nil && !o.Raw && !o.DisableTools { // otherwise the effective tools are not the given ones (protocol.md §5.2)
		act.Expect(offSurfaceChanged(o.Tools, r.Prepared.Tools)).To(gomega.BeEmpty(),
			"a run without code mode must expose the given tools unchanged (name, description, input schema), or through Tool Search; the surface was %v", ToolNames(r.Prepared.Tools))
	}
	return r.Prepared.Tools
}

// ownedBy is the Gomega that judges a check owned by requirement req: the
// spec's own when the current spec is req's, else Precondition(req).
func ownedBy(req string) gomega.Gomega {
	if currentRequirement() == req {
		return gomega.Default
	}
	return Precondition(req)
}

// offSurfaceChanged lists the given tools that surface (the model-visible
// tools of a run without code mode) does not show unchanged: a tool of the
// same name, description and input schema (JSON-equal to its parameters;
// any schema when it has none). Tools the surface adds are allowed. A
// surface with Tool Search's controls (tool_search and tool_call) defers the
// tools behind them, so a given tool it does not show is not missing; one it
// shows must still be unchanged.
func offSurfaceChanged(given []tools.Tool, surface []protocol.ModelTool) []string {
	byName := map[string][]protocol.ModelTool{}
	for _, t := range surface {
		byName[t.Name] = append(byName[t.Name], t)
	}
	givenNames := map[string]bool{}
	for _, t := range given {
		givenNames[t.Spec.Name] = true
	}
	// Controls the run itself declared are given tools, not Tool Search.
	deferred := len(byName["tool_search"]) > 0 && len(byName["tool_call"]) > 0 && !givenNames["tool_search"] && !givenNames["tool_call"]
	var out []string
	for _, t := range given {
		shown := byName[t.Spec.Name]
		if len(shown) == 0 {
			if !deferred {
				out = append(out, fmt.Sprintf("%s is missing", t.Spec.Name))
			}
			continue
		}
		same := false
		for _, m := range shown {
			same = same || (m.Description == t.Spec.Description && (len(t.Spec.Parameters) == 0 || SamePartial(m.InputSchema, t.Spec.Parameters)))
		}
		if !same {
			b, _ := json.Marshal(shown)
			out = append(out, fmt.Sprintf("%s is changed: given description %q and schema %s, shown %s", t.Spec.Name, t.Spec.Description, t.Spec.Parameters, b))
		}
	}
	return out
}

// ToolNames lists the names of model-visible tools, in order.
func ToolNames(ts []protocol.ModelTool) []string {
	out := []string{}
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}
