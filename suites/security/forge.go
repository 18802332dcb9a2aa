package security

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// forgeReport is what forgeInvokes(lines) in realm.js returns.
type forgeReport struct {
	// Escapes are the paths out of the guest realm the guest found.
	Escapes []string `json:"escapes"`
	// Forged counts the lines the guest wrote to the target's stdout.
	Forged int `json:"forged"`
	// Via names how it reached the target's stdout.
	Via []string `json:"via"`
}

// forgedInvoke is a JSON-RPC tool.invoke line made up by guest code.
func forgedInvoke(id string, p protocol.InvokeParams) string {
	ginkgo.GinkgoHelper()
	if p.Input == nil {
		p.Input = json.RawMessage(`{}`)
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": protocol.MethodToolInvoke, "params": p})
	Expect(err).NotTo(HaveOccurred(), "encoding the forged tool.invoke line %s", id)
	return string(b)
}

// forge runs a cell of r that first tries every escape of realm.js and,
// if one reaches the target's own stdout, writes lines there as its own
// tool.invoke requests (and again when the host awaits the cell's result).
// The cell then makes one real nested call and r one more exec, so the
// harness has read every forged line before the spec looks at what ran.
// It returns the guest's report and the exec and every wait that drove the
// cell (a target may suspend at each nested call; their nested calls name
// any of these as parent).
func forge(ctx context.Context, r *Run, lines ...string) (forgeReport, []Result) {
	ginkgo.GinkgoHelper()
	js, err := json.Marshal(lines)
	Expect(err).NotTo(HaveOccurred(), "encoding the forged lines for the guest")
	// The real nested call goes through the guest dialect (not the subject).
	res, steps := r.RunToCompletion(ctx, Guest(fmt.Sprintf(`%s
const out = await forgeInvokes(%s);
if (listTools().some((t) => t.name === "echo")) await call("echo", {after: "forging"});
return out;`, realmJS, js)))
	probeCompleted(res, "the forging cell")
	var rep forgeReport
	Precondition("CM-EXEC-06").Expect(json.Unmarshal(res.Value, &rep)).To(Succeed(), "the forging cell returns its report as JSON: %s", res.Value)
	ginkgo.AddReportEntry("forged tool.invoke", fmt.Sprintf("lines:\n%s\nguest report: %s", js, res.Value), ginkgo.ReportEntryVisibilityFailureOrVerbose)
	probeCompleted(r.Exec(ctx, `return "flush";`), "the flush cell after the forging cell")
	return rep, steps
}

// firstExecCallID is the toolCallId the harness gives the first exec of a
// fresh run (framework's run.go numbers them <run>-call-<n>): a forged
// invoke naming it claims the outstanding parent.
func firstExecCallID(r *Run) string { return r.ID + "-call-1" }

// forgedFrom describes how a forging cell got out, for failure messages.
func forgedFrom(rep forgeReport) string {
	paths := rep.Escapes
	if len(paths) > 5 {
		paths = append(paths[:5:5], fmt.Sprintf("… %d more (CM-SEC-01/02 list them)", len(rep.Escapes)-5))
	}
	return fmt.Sprintf("the guest wrote %d forged line(s) via %v after escaping through %v", rep.Forged, rep.Via, paths)
}

var _ = Describe("security", "forged nested calls", func() {
	It("CM-GUEST-05", "a guest that escapes the sandbox cannot run a denied tool or a parentless call by writing its own tool.invoke", func(ctx SpecContext) {
		denied := tools.Named(protocol.SourcePlugin, "vault", "wipe_disk", "Erase the disk (denied by policy).")
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: []tools.Tool{tools.Echo(), denied}, Policy: &protocol.Policy{Deny: []string{"wipe_disk"}}})
		parent := firstExecCallID(r)
		rep, steps := forge(ctx, r,
			forgedInvoke("forged-denied", protocol.InvokeParams{Run: r.ID, ToolCallID: "forged-denied", ParentToolCallID: parent,
				CatalogID: "plugin:vault:wipe_disk", Tool: "wipe_disk", Source: protocol.SourcePlugin, Owner: "vault", Context: r.Params.RunContext}),
			forgedInvoke("forged-parentless", protocol.InvokeParams{Run: r.ID, ToolCallID: "forged-parentless", ParentToolCallID: "no-such-parent-call",
				CatalogID: "openclaw:core:echo", Tool: "echo", Source: protocol.SourceOpenClaw, Owner: "core", Context: r.Params.RunContext,
				Input: json.RawMessage(`{"forged":true}`)}))
		Expect(r.Tools.CallsOf("wipe_disk")).To(BeEmpty(), "the run's policy denies wipe_disk, yet it ran: %s", forgedFrom(rep))
		issued := map[string]bool{}
		for _, s := range steps {
			issued[s.ToolCallID] = true
		}
		for _, c := range r.Tools.Calls() {
			Expect(issued).To(HaveKey(c.ParentToolCallID), "nested call %s (%s) names parent %q, which is not an exec/wait the harness sent for the forging cell: %s",
				c.ToolCallID, c.Tool, c.ParentToolCallID, forgedFrom(rep))
		}
	})

	It("CM-SEC-05", "a guest that escapes the sandbox cannot act in another run, an unknown run or an ended run by writing its own tool.invoke", func(ctx SpecContext) {
		secret := tools.Named(protocol.SourcePlugin, "vault", "read_secret", "Read the vault secret of run B.")
		b := NewRun(ctx, RunOptions{CodeMode: true, Tools: []tools.Tool{tools.Echo(), secret}})
		ended := NewRun(ctx, RunOptions{CodeMode: true, Tools: []tools.Tool{tools.Echo(), secret}})
		ended.End(ctx)
		a := NewRun(ctx, RunOptions{CodeMode: true, Tools: []tools.Tool{tools.Echo()}})
		into := func(id string, target *Run) string {
			return forgedInvoke(id, protocol.InvokeParams{Run: target.ID, ToolCallID: id, ParentToolCallID: firstExecCallID(a),
				CatalogID: "plugin:vault:read_secret", Tool: "read_secret", Source: protocol.SourcePlugin, Owner: "vault", Context: target.Params.RunContext})
		}
		unknown := forgedInvoke("forged-unknown-run", protocol.InvokeParams{Run: "no-such-run-" + a.ID, ToolCallID: "forged-unknown-run",
			ParentToolCallID: firstExecCallID(a), CatalogID: "openclaw:core:echo", Tool: "echo", Source: protocol.SourceOpenClaw, Owner: "core",
			Context: a.Params.RunContext})
		rep, _ := forge(ctx, a, into("forged-other-run", b), into("forged-ended-run", ended), unknown)
		Expect(b.Tools.CallsOf("read_secret")).To(BeEmpty(), "run A's guest ran run B's read_secret: %s", forgedFrom(rep))
		Expect(ended.Tools.Calls()).To(BeEmpty(), "run A's guest reached an ended run's tools: %s", forgedFrom(rep))
		Expect(b.Tools.Calls()).To(BeEmpty(), "run B made no call, yet its tools ran: %s", forgedFrom(rep))
	})

	It("CM-ACT-05", "a guest that escapes the sandbox cannot call another agent's tool by writing its own tool.invoke", func(ctx SpecContext) {
		private := tools.Named(protocol.SourcePlugin, "private", "private_tool", "Only for run B of another agent.")
		b := NewRun(ctx, RunOptions{CodeMode: true, Tools: []tools.Tool{tools.Echo(), private}})
		a := NewRun(ctx, RunOptions{CodeMode: true, Tools: []tools.Tool{tools.Echo()}})
		call := func(id string, run *Run) string {
			return forgedInvoke(id, protocol.InvokeParams{Run: run.ID, ToolCallID: id, ParentToolCallID: firstExecCallID(a),
				CatalogID: "plugin:private:private_tool", Tool: "private_tool", Source: protocol.SourcePlugin, Owner: "private", Context: run.Params.RunContext})
		}
		rep, _ := forge(ctx, a, call("forged-into-b", b), call("forged-in-a", a))
		Expect(b.Tools.CallsOf("private_tool")).To(BeEmpty(), "run A's guest ran another agent's private_tool: %s", forgedFrom(rep))
		Expect(a.Tools.CallsOf("private_tool")).To(BeEmpty(), "run A's catalog has no private_tool, yet an invoke for it reached the harness: %s", forgedFrom(rep))
	})
})
