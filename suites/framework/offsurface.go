package framework

import (
	"context"

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
// Search). That the default leaves code mode off is CM-CFG-01's charge; a
// run whose default is on is no baseline, so the caller's spec fails here.
func SurfaceWithoutCodeMode(ctx context.Context, o RunOptions) []protocol.ModelTool {
	ginkgo.GinkgoHelper()
	o.CodeMode, o.AgentCodeMode, o.ID = nil, nil, ""
	r := NewRun(ctx, o)
	g := gomega.Default
	if currentRequirement() != "CM-CFG-01" { // the default is CM-CFG-01's; other specs are blocked by it
		g = Precondition("CM-CFG-01")
	}
	g.Expect(r.Prepared.Failure).To(gomega.BeNil(), "a run without tools.codeMode must not fail: %+v", r.Prepared.Failure)
	g.Expect(r.Prepared.CodeModeActive).To(gomega.BeFalse(), "code mode must be off by default (a run without tools.codeMode is the surface without code mode)")
	return r.Prepared.Tools
}

// ToolNames lists the names of model-visible tools, in order.
func ToolNames(ts []protocol.ModelTool) []string {
	out := []string{}
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}
