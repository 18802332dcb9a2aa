package mcp

import (
	fakemcp "github.com/codemode-conformance/codemode/fakes/mcp"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var _ = Describe("mcp", "MCP calls drain inside one exec", func() {
	forEachTransport(func(transport string) {
		It("CM-EXEC-15", "a compact cell that inspects $api() and calls MCP tools completes within the same exec, over "+transport, func(ctx SpecContext) {
			RequireFeature("mcp", "CM-EXEC-15 is observable only through MCP bridge calls")
			r := mcpRun(ctx, transport, map[string]fakemcp.Kind{docs: fakemcp.KindDocs})
			res := r.Exec(ctx, MCPGuest(`const header = await MCP.docs.$api();
				const a = await callMCP("docs", "echo", {n: 1});
				const s = await callMCP("docs", "slow", {ms: 50});
				const [b, c] = await Promise.all([callMCP("docs", "echo", {n: 2}), callMCP("docs", "echo", {n: 3})]);
				return {header: header !== undefined, n: [a, b, c].length};`))
			Expect(res).To(CompleteWith(map[string]any{"header": true, "n": 3}),
				"ready MCP calls must be drained inside the same exec: the cell must complete without a wait round trip (timeoutMs 10000; the slowest call takes 50 ms)")
		})
	})
})
