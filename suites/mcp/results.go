package mcp

import (
	fakemcp "github.com/codemode-conformance/codemode/fakes/mcp"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var _ = Describe("mcp", "MCP results", func() {
	forEachTransport(func(transport string) {
		It("CM-MCP-10", "an MCP call resolves with an McpToolResult: content, structuredContent and isError as the server returned them, plus other keys, over "+transport, func(ctx SpecContext) {
			r := mcpRun(ctx, transport, map[string]fakemcp.Kind{docs: fakemcp.KindDocs})
			res, _ := r.RunToCompletion(ctx, MCPGuest(`return {s: await callMCP("docs", "structured", {}), i: await callMCP("docs", "create_issue", {owner: "o", repo: "r", title: "t"})};`))
			v := value(res, "a cell calling structured and create_issue")
			s := MustToolResult(v["s"], "structured's result")
			Expect(diff(fakemcp.StructuredResult, s.StructuredContent)).To(BeEmpty(), "structuredContent must be what the server returned (profile %s, shape %s) (-server +guest)\n%s", Profile(), s.Shape, res)
			Expect(s.Content).To(HaveLen(1), "content must be the server's one text item (profile %s, shape %s): %s", Profile(), s.Shape, res)
			Expect(s.Content[0]).To(HaveKeyWithValue("type", "text"), "content items keep their MCP type: %s", res)
			Expect(diff(fakemcp.StructuredResult, decodeJSON(s.Text()))).To(BeEmpty(), "the text content must be what the server returned: %s", res)
			Expect(s.IsError).To(BeFalse(), "a successful call is not isError: %s", res)
			// McpToolResult's index signature ([key: string]: unknown, 000)
			// permits other keys; it does not oblige a target to keep the
			// server's _meta, so that is not judged (verdict audit A7).
			i := MustToolResult(v["i"], "create_issue's result")
			Expect(i.StructuredContent).To(Equal(map[string]any{"number": 1.0, "owner": "o", "repo": "r", "title": "t"}), "create_issue's structuredContent must arrive unchanged: %s", res)
			Expect(i.Text()).To(Equal("created issue #1 in o/r: t"), "create_issue's text content must arrive unchanged: %s", res)
		})
	})
})

// decodeJSON decodes s, or returns s itself when it is not JSON.
func decodeJSON(s string) any {
	var v any
	if jsonUnmarshal(s, &v) != nil {
		return s
	}
	return v
}
