package mcp

import (
	"fmt"
	"syscall"
	"time"

	fakemcp "github.com/codemode-conformance/codemode/fakes/mcp"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

// stableError checks a caught guest error (probe's caught member): an object
// whose name and message are non-empty strings.
func stableError(v any, what string, res Result) map[string]any {
	m, _ := v.(map[string]any)
	c, ok := m["caught"].(map[string]any)
	Expect(ok).To(BeTrue(), "%s must reject with a catchable guest error, got %v\n%s", what, m, res)
	Expect(c["type"]).To(Equal("object"), "%s must reject with an error object (stable shape {name, message}), got %v\n%s", what, c, res)
	Expect(c["name"]).To(And(BeAssignableToTypeOf(""), Not(BeEmpty())), "%s: the error must have a string name: %v\n%s", what, c, res)
	Expect(c["message"]).To(And(BeAssignableToTypeOf(""), Not(BeEmpty())), "%s: the error must have a string message: %v\n%s", what, c, res)
	return c
}

var _ = Describe("mcp", "MCP failures in the guest", func() {
	forEachTransport(func(transport string) {
		It("CM-MCP-08", "isError results resolve, an unknown tool, a server error and a lost server are catchable errors with a stable shape, and the VM stays usable, over "+transport, func(ctx SpecContext) {
			r := mcpRun(ctx, transport, map[string]fakemcp.Kind{docs: fakemcp.KindDocs})
			res, _ := r.RunToCompletion(ctx, MCPGuest(`const reported = await probe(() => callMCP("docs", "report_failure", {}));
				const thrown = await probe(() => callMCP("docs", "explode", {}));
				const unknown = await probe(() => MCP.docs.noSuchTool({}));
				const after = await callMCP("docs", "echo", {after: true});
				return {reported, thrown, unknown, after};`))
			v := value(res, "a cell meeting three MCP failures")
			rep, _ := v["reported"].(map[string]any)
			Expect(rep).To(HaveKey("resolved"), "a tool result with isError: true must resolve (the tool's result contract reports the failure), not throw: %s", res)
			tr := MustToolResult(rep["resolved"], "report_failure's result")
			Expect(tr.IsError).To(BeTrue(), "report_failure's result must carry isError: true (profile %s, shape %s): %s", Profile(), tr.Shape, res)
			Expect(tr.Text()).To(Equal(fakemcp.ReportFailureText), "report_failure's result must keep its text content (profile %s, shape %s): %s", Profile(), tr.Shape, res)
			thrown := stableError(v["thrown"], "a tool the server fails with a JSON-RPC error (explode)", res)
			Expect(thrown["message"]).To(ContainSubstring(fakemcp.ExplodeMessage), "the server's error message must reach the guest: %s", res)
			stableError(v["unknown"], "an unknown MCP tool (MCP.docs.noSuchTool)", res)
			after := MustToolResult(v["after"], "echo after the failures")
			Expect(after.StructuredContent).To(Equal(map[string]any{"after": true}), "MCP calls must work after the failures in the same cell: %s", res)

			// The fourth: the server is gone (the harness stops the HTTP server,
			// or kills the stdio server's process).
			if s := r.MCP[docs]; s.HTTP != nil {
				Expect(s.HTTP.Close()).To(Succeed(), "stopping the fake HTTP server")
			} else {
				var pid int
				Eventually(func() bool { var ok bool; pid, ok = s.PID(); return ok }).WithTimeout(10*time.Second).Should(BeTrue(), "the stdio server must have started and written its pid")
				Expect(syscall.Kill(pid, syscall.SIGKILL)).To(Succeed(), "killing the stdio server %d", pid)
				Eventually(func() string { return ProcessState(pid) }).WithTimeout(10*time.Second).Should(BeElementOf("gone", "zombie"), "the killed stdio server %d must end", pid)
			}
			gone, _ := r.RunToCompletion(ctx, MCPGuest(`const lost = await probe(() => callMCP("docs", "echo", {lost: true}));
				return {lost, alive: 6 * 7};`))
			g := value(gone, "a cell calling a server that is gone")
			stableError(g["lost"], fmt.Sprintf("a call to a server that is gone (%s)", transport), gone)
			Expect(g["alive"]).To(BeEquivalentTo(42), "the VM must stay usable after the lost server's error: %s", gone)
			next, _ := r.RunToCompletion(ctx, `return 6 * 7;`)
			Expect(next).To(CompleteWith(42), "the run must keep serving cells after MCP failures")
		})
	})
})
