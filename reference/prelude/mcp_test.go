package prelude_test

import (
	"context"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/prelude"
)

var mcpTable = &prelude.MCPBoot{
	Servers: []prelude.MCPServer{{Name: "acmeTools2", Server: "acme.tools-2", Path: "mcp/acmeTools2.d.ts", Tools: []prelude.MCPTool{
		{Name: "proto", MCPName: "__proto__", ID: "mcp:acme.tools-2:__proto__", Description: "p", InputSchema: json.RawMessage(`{"type":"object"}`), Header: "proto header"},
		{Name: "constructor", MCPName: "constructor", ID: "mcp:acme.tools-2:constructor", Description: "c", Header: "ctor header"},
	}}},
	Files: []prelude.MCPFile{{Path: "mcp/index.d.ts", Bytes: 5, Text: "index"}, {Path: "mcp/acmeTools2.d.ts", Server: "acme.tools-2", Bytes: 6, Text: "server text"}},
}

var _ = Describe("mcp.js", func() {
	It("passes its own JavaScript tests (testdata/mcp.test.js)", func(ctx SpecContext) {
		vm := newVM(ctx)
		poll := loadAndBoot(ctx, vm, prelude.Boot{Catalog: catalog, MaxOutputBytes: 65536, SearchDefaultLimit: 8, MaxSearchLimit: 3, MCP: mcpTable})

		got := runJSTests(ctx, vm, "testdata/mcp.test.js")
		Expect(got.Failures).To(BeEmpty(), "failures of mcp.test.js")
		Expect(got.Settled).To(Equal(13), "every settle() of mcp.test.js ran")

		var p prelude.Poll
		Expect(json.Unmarshal([]byte(poll()), &p)).To(Succeed())
		type req struct{ Op, Tool, Input string }
		var reqs []req
		for _, r := range p.Requests {
			reqs = append(reqs, req{r.Op, r.Tool, string(r.Input)})
		}
		Expect(reqs).To(Equal([]req{{"mcp", "mcp:acme.tools-2:__proto__", `{"a":1}`},
			{"mcpResource", "mcp:acme.tools-2:resources/read", `{"uri":"memo://one"}`},
			{"mcpPrompt", "mcp:acme.tools-2:prompts/get", `{"name":"brief","arguments":{"topic":"x"}}`}}),
			"one bridge request per call, naming the exact catalog id (tools) or server method; invalid calls send none")
	})
})

// loadAndBoot loads the prelude and its extensions (prelude.Load) in vm, boots it with b, and returns a function that polls the bridge.
func loadAndBoot(ctx context.Context, vm *engine.VM, b prelude.Boot) (poll func() string) {
	GinkgoHelper()
	br, err := prelude.Load(ctx, vm) // prelude.Scripts, then the bridge taken
	Expect(err).NotTo(HaveOccurred(), "loading the prelude and its extensions")
	Expect(br.Boot(ctx, vm, b)).To(Succeed(), "booting with an MCP table")
	return func() string {
		raw, err := br.Poll(ctx, vm)
		Expect(err).NotTo(HaveOccurred(), "polling the bridge")
		return raw
	}
}
