package e2e

import (
	"slices"

	"github.com/codemode-conformance/codemode/fakes/provider"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var _ = Describe("e2e", "end-to-end plan: agent and runtime configuration", func() {
	It("CM-CFG-10", "the agent's tools.codeMode overrides the runtime's field by field, and the runtime's fields the agent leaves out still apply", func(ctx SpecContext) {
		// firstTools runs a one-request turn and returns the tools the provider got.
		firstTools := func(o RunOptions) []string {
			r := NewRun(ctx, o)
			prov := StartProvider(provider.Final("ok"))
			res := r.Turn(ctx, prov, "Hello.", TurnOptions{})
			Expect(res.Status).To(Equal(protocol.TurnCompleted), "the turn must complete%s", evidence(prov, res))
			Expect(prov.Requests()).To(HaveLen(1), "one request%s", evidence(prov, res))
			return prov.Requests()[0].ToolNames()
		}
		// Code mode off is the target's own surface without code mode, not
		// the ToolSpecs (OpenClaw 2026.9.6 shows Tool Search).
		direct := ToolNames(SurfaceWithoutCodeMode(ctx, RunOptions{Tools: planTools()}))
		slices.Sort(direct) // ToolNames is sorted: a tool list's order means nothing to the model
		Expect(firstTools(RunOptions{CodeMode: map[string]any{"enabled": false}, AgentCodeMode: true, Tools: planTools()})).To(Equal([]string{"exec", "wait"}),
			"runtime tools.codeMode {enabled: false} with the agent's true: the agent's setting wins and code mode is active")
		Expect(firstTools(RunOptions{CodeMode: true, AgentCodeMode: false, Tools: planTools()})).To(Equal(direct),
			"runtime tools.codeMode true with the agent's false: the agent's setting wins and the tools are sent as without code mode")

		// The runtime's timeoutMs (700) still applies under the agent's {enabled: true}:
		// a 2500 ms nested call suspends the cell, which the 10 s default would not.
		r := NewRun(ctx, RunOptions{CodeMode: map[string]any{"enabled": false, "timeoutMs": 700}, AgentCodeMode: map[string]any{"enabled": true}, Tools: planTools()})
		prov := StartProvider(provider.Exec(Guest(`await call("slow", {ms: 2500}); return "done";`)), r.Settle())
		res := r.Turn(ctx, prov, "Run the slow job.", TurnOptions{})
		Expect(res.Status).To(Equal(protocol.TurnCompleted), "the turn must complete%s", evidence(prov, res))
		results := toolResults(res)
		Expect(results).NotTo(BeEmpty(), "an exec result%s", evidence(prov, res))
		Expect(results[0]["status"]).To(Equal("waiting"), "the runtime's timeoutMs 700, which the agent's {enabled: true} leaves out, must bound the exec: a 2500 ms nested call suspends the cell%s", evidence(prov, res))
		Expect(results[len(results)-1]["value"]).To(Equal("done"), "the suspended cell must complete after wait%s", evidence(prov, res))
	})
})
