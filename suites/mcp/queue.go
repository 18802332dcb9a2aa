package mcp

import (
	fakemcp "github.com/codemode-conformance/codemode/fakes/mcp"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

// MCP requests under the bridge queue (feature bridge-queue, 001
// [嵌套工具执行]): maxPendingToolCalls bounds the requests in flight, not
// the size of a Promise.all, for MCP.<server>.<tool>() as for tools.call.

var _ = Describe("mcp", "MCP calls in the bridge queue", func() {
	forEachTransport(func(transport string) {
		It("CM-NEST-05", "MCP tool calls beyond maxPendingToolCalls queue and the cell completes, over "+transport, func(ctx SpecContext) {
			RequireFeature("mcp", "the spec calls MCP tools")
			r := mcpRunWith(ctx, transport, map[string]fakemcp.Kind{docs: fakemcp.KindDocs},
				RunOptions{CodeMode: Enabled(map[string]any{"maxPendingToolCalls": 2, "timeoutMs": 20000})})
			res, _ := r.RunToCompletion(ctx, MCPGuest(`const out = await Promise.all(Array.from({length: 8}, (_, i) => callMCP("docs", "echo", {n: i})));
return out.length;`))
			Expect(res).To(CompleteWith(8), "8 MCP calls with maxPendingToolCalls 2 must queue and complete, not fail with too_many_pending_tool_calls: %s", res)
		})
	})
})
