package mcp

import (
	"strings"

	fakemcp "github.com/codemode-conformance/codemode/fakes/mcp"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

// MCP tool calls share the catalog's hooks and trajectory (000 [MCP]: "MCP
// entries stay in the run-scoped catalog, so policy, approvals, hooks,
// telemetry, transcript projection and exact tool ids stay shared with
// normal tool execution"; 001 [嵌套工具执行]: every nested call keeps the
// before_tool_call hooks and the trajectory events). So CM-NEST-02 and
// CM-NEST-07 hold for MCP.<server>.<tool>() as for tools.call.

var _ = Describe("mcp", "hooks and trajectory of MCP tool calls", func() {
	forEachTransport(func(transport string) {
		It("CM-NEST-02", "a before_tool_call hook is asked about an MCP tool call and can block it; the guest catches the block and the server is never called, over "+transport, func(ctx SpecContext) {
			RequireFeature("mcp", "the spec hooks an MCP tool call")
			g := &Gates{Hook: Block("policy forbids MCP echo", fakemcp.ToolEcho)}
			r := mcpRunWith(ctx, transport, map[string]fakemcp.Kind{docs: fakemcp.KindDocs}, RunOptions{Gates: g})
			res, _ := r.RunToCompletion(ctx, MCPGuest(`return await probe(() => callMCP("docs", "echo", {text: "guarded"}));`))
			v := value(res, "a cell calling MCP.docs.echo under a blocking hook")
			Expect(v).To(HaveKey("caught"), "an MCP tool call the before_tool_call hook blocks must reject in the guest, catchably: %s", res)
			Expect(v["caught"]).To(HaveKeyWithValue("message", ContainSubstring("policy forbids MCP echo")), "the guest's error must carry the hook's reason: %s", res)
			ev := g.HookEventsFor(fakemcp.ToolEcho)
			Expect(ev).To(HaveLen(1), "the hook must be asked once about the MCP echo call: %v", g.HookEventsSeen())
			Expect(ev[0].ToolKind).To(Equal(protocol.ToolKindNested), "an MCP call's hook event has toolKind %q: %+v", protocol.ToolKindNested, ev[0])
			Expect(strings.HasPrefix(ev[0].CatalogID, "mcp:")).To(BeTrue(), "an MCP call's hook event names its mcp: catalog id: %+v", ev[0])
			Expect(ev[0].Input).To(MatchJSON(`{"text":"guarded"}`), "the hook sees the MCP call's input: %+v", ev[0])
			if n, ok := r.MCP[docs].Calls(); ok {
				Expect(n).To(BeZero(), "a blocked MCP call must never reach the server (over %s)", transport)
			}
		})

		It("CM-NEST-07", "an MCP tool call appears in run.trajectory as a nested call under the exec it was made in, with its catalog id, over "+transport, func(ctx SpecContext) {
			RequireFeature("mcp", "the spec traces an MCP tool call")
			r := mcpRun(ctx, transport, map[string]fakemcp.Kind{docs: fakemcp.KindDocs})
			res := r.Exec(ctx, MCPGuest(`await callMCP("docs", "echo", {text: "traced"}); return "done";`))
			Expect(res).To(CompleteWith("done"), "the cell calling MCP.docs.echo must complete")
			var tr protocol.TrajectoryResult
			err := T().Call(ctx, protocol.MethodRunTrajectory, protocol.RunParams{Run: r.ID}, &tr)
			NotAnswered("trajectory", protocol.MethodRunTrajectory, err)
			Expect(err).To(Succeed(), "run.trajectory failed at the protocol level")
			var exec, nested []protocol.TrajectoryCall
			for _, c := range tr.Calls {
				if c.ToolCallID == res.ToolCallID {
					exec = append(exec, c)
				}
				if c.ParentToolCallID == res.ToolCallID {
					nested = append(nested, c)
				}
			}
			Expect(exec).To(HaveLen(1), "run.trajectory must list the exec call %q: %+v", res.ToolCallID, tr.Calls)
			Expect(nested).To(HaveLen(1), "run.trajectory must list the MCP call as a nested call under exec %q: %+v", res.ToolCallID, tr.Calls)
			Expect(nested[0].Tool).To(Equal(fakemcp.ToolEcho), "the nested row names the MCP tool: %+v", nested[0])
			Expect(nested[0].CatalogID).To(HavePrefix("mcp:"), "the nested row carries the MCP tool's catalog id: %+v", nested[0])
			Expect(nested[0].Input).To(MatchJSON(`{"text":"traced"}`), "the nested row carries the call's input: %+v", nested[0])
			Expect(nested[0].Status).To(Equal("ok"), "the MCP call succeeded: %+v", nested[0])
		})
	})
})
