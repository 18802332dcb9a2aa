package mcp

import (
	"fmt"

	fakemcp "github.com/codemode-conformance/codemode/fakes/mcp"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var _ = Describe("mcp", "MCP resources and prompts", func() {
	forEachTransport(func(transport string) {
		It("CM-MCP-06", "MCP.<server>.resources.read and prompts.get reach the server's resource and prompt, over "+transport, func(ctx SpecContext) {
			r := mcpRun(ctx, transport, map[string]fakemcp.Kind{docs: fakemcp.KindDocs})
			res, _ := r.RunToCompletion(ctx, probe+fmt.Sprintf(`const resource = await MCP.docs.resources.read({uri: %q});
				const prompt = await MCP.docs.prompts.get({name: %q, arguments: {topic: "release"}});
				const missing = await probe(() => MCP.docs.resources.read({uri: "memo://none"}));
				return {resource, prompt, missing: !!missing.caught};`, fakemcp.ResourceMemo, fakemcp.PromptBrief))
			v := value(res, "a cell reading a resource and getting a prompt")
			Expect(fmt.Sprint(v["resource"])).To(ContainSubstring(fakemcp.ResourceMemoText), "resources.read({uri: %q}) must resolve with the resource's text: %s", fakemcp.ResourceMemo, res)
			Expect(fmt.Sprint(v["prompt"])).To(ContainSubstring(fakemcp.BriefText("release")), "prompts.get must resolve with the prompt rendered for its arguments: %s", res)
			Expect(v["missing"]).To(BeTrue(), "reading a resource the server does not have must reject: %s", res)
		})
	})
})
