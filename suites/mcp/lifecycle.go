package mcp

import (
	"time"

	fakemcp "github.com/codemode-conformance/codemode/fakes/mcp"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var _ = Describe("mcp", "MCP servers end with their run", func() {
	// stdioPIDs starts a run with two stdio servers, makes each answer a call
	// and returns their process ids, each checked running.
	stdioPIDs := func(ctx SpecContext) (*Run, map[string]int) {
		r := mcpRun(ctx, protocol.MCPTransportStdio, map[string]fakemcp.Kind{docs: fakemcp.KindDocs, "notes": fakemcp.KindDocs})
		res, _ := r.RunToCompletion(ctx, MCPGuest(`return [await callMCP("docs", "server_stats", {}), await callMCP("notes", "server_stats", {})];`))
		Expect(res).To(BeCompleted(), "both stdio servers must answer a call")
		pids := map[string]int{}
		for _, name := range []string{docs, "notes"} {
			pid, ok := r.MCP[name].PID()
			Expect(ok).To(BeTrue(), "the stdio server %s must have written its pid when the target started it", name)
			Expect(ProcessState(pid)).To(Equal("running"), "the stdio server %s (pid %d) must run while its run is live", name, pid)
			pids[name] = pid
		}
		return r, pids
	}
	gone := func(pids map[string]int, after string) {
		for name, pid := range Sorted(pids) {
			Eventually(func() string { return ProcessState(pid) }).WithTimeout(time.Second).WithPolling(20*time.Millisecond).Should(Equal("gone"),
				"after %s the stdio server %s (pid %d) must be stopped and reaped: no child process of the run may outlive the answer to %s (protocol.md §5.5), running or as a zombie; checked for 1 s after it", after, name, pid, after)
		}
	}

	It("CM-MCP-01", "the stdio MCP servers a run started are stopped when the run ends: no child process is left", func(ctx SpecContext) {
		r, pids := stdioPIDs(ctx)
		r.End(ctx)
		gone(pids, "run.end")
	})

	It("CM-MCP-01", "the stdio MCP servers a run started are stopped when the run is aborted", func(ctx SpecContext) {
		r, pids := stdioPIDs(ctx)
		r.Abort(ctx)
		gone(pids, "run.abort")
	})
})
