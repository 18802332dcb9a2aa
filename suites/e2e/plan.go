package e2e

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/codemode-conformance/codemode/fakes/provider"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/google/go-cmp/cmp"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("e2e", "end-to-end plan: agent turns through the fake model provider", func() {
	It("CM-E2E-01", "with code mode disabled, a turn sends the direct tools unchanged to the provider and runs the model's direct call", func(ctx SpecContext) {
		// "Those tools unchanged" is the target's own surface without code
		// mode (the reference's is the ToolSpecs unchanged; OpenClaw 2026.9.6
		// shows Tool Search), as its run.prepare reports it.
		surface := SurfaceWithoutCodeMode(ctx, RunOptions{Tools: planTools()})
		var want []protocol.ChatFunction
		direct := false // add is one of the model's tools, so the model may call it directly
		for _, t := range surface {
			want = append(want, protocol.ChatFunction{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
			direct = direct || t.Name == "add"
		}
		// The scripted model calls add directly only where the surface shows
		// it: behind Tool Search a direct call of a tool never offered is the
		// model's mistake, not the target's (triage audit 1.2), and the
		// requirement judges the tools sent, not how a deferred tool is run.
		script := []provider.Step{provider.Final("five")}
		if direct {
			script = append([]provider.Step{provider.Call("add", map[string]any{"a": 2, "b": 3})}, script...)
		} else {
			ginkgo.AddReportEntry("direct call", fmt.Sprintf("the surface without code mode shows %v, not add: the model's direct call is not scripted", ToolNames(surface)))
		}
		r := NewRun(ctx, RunOptions{CodeMode: map[string]any{"enabled": false}, Tools: planTools()})
		prov := StartProvider(script...)
		res := r.Turn(ctx, prov, "Add 2 and 3.", TurnOptions{})
		Expect(res.Status).To(Equal(protocol.TurnCompleted), "the turn must complete%s", evidence(prov, res))
		reqs := prov.Requests()
		Expect(reqs).To(HaveLen(len(script)), "one request per step of the scripted model (the direct call, if scripted, and the final answer)%s", evidence(prov, res))
		for _, q := range reqs {
			var got []protocol.ChatFunction
			for _, t := range q.Tools {
				got = append(got, t.Function)
			}
			Expect(cmp.Diff(canonicalTools(want), canonicalTools(got))).To(BeEmpty(),
				"request %d: with code mode disabled the provider must receive the run's tools unchanged (names, descriptions, parameters) (-want +got)%s", q.Seq, evidence(prov, res))
		}
		if direct {
			Expect(r.Tools.CallsOf("add")).To(HaveLen(1), "the model's direct add call must reach the harness once%s", evidence(prov, res))
			Expect(r.Tools.CallsOf("add")[0].ParentToolCallID).To(BeEmpty(), "a direct call has no parent exec/wait")
			// No requirement speaks of call ids: a target may rename the model's
			// call id in the replay (OpenClaw's strict tool-call-id policy), so
			// only the one tool result's content is judged.
			results := reqs[1].ToolResults()
			Expect(results).To(HaveLen(1), "the second request must carry the direct call's result as one tool message%s", evidence(prov, res))
			for _, v := range results {
				Expect(resultText(v)).To(MatchJSON(`{"sum":5}`), "the direct call's result%s", evidence(prov, res))
			}
		}
		Expect(res.Text).To(Equal("five"), "the turn's final text is the model's%s", evidence(prov, res))
	})

	It("CM-E2E-02", "with code mode enabled and core, plugin, MCP and client tools, every provider request carries exactly exec and wait", func(ctx SpecContext) {
		o := RunOptions{CodeMode: true, Tools: planTools()}
		if Features().Has("mcp") {
			o.MCPServers = []MCPServer{{Name: "docs", Kind: "docs", Transport: protocol.MCPTransportHTTP}}
		}
		r := NewRun(ctx, o)
		// The model also calls a hidden catalog tool by name: it must not run.
		prov := StartProvider(provider.Exec(Guest("return listTools().length")), provider.Call("echo", map[string]any{"message": "direct"}), provider.Final("done"))
		res := r.Turn(ctx, prov, "How many tools are there?", TurnOptions{})
		Expect(res.Status).To(Equal(protocol.TurnCompleted), "the turn must complete%s", evidence(prov, res))
		Expect(prov.Requests()).To(HaveLen(3), "one request for exec, one for the echo call, one with its result%s", evidence(prov, res))
		Expect(r.Tools.CallsOf("echo")).To(BeEmpty(), "a catalog tool the model calls by name, outside exec, must not run while code mode is active%s", evidence(prov, res))
		// The answer to the call outside the surface is the target's own text
		// (the reference's {"error": …}, a gateway's "Tool echo not found"):
		// what matters is that the tool never ran, checked above.
		var toolMsgs []string
		for _, m := range res.Messages {
			if m.Role == "tool" {
				toolMsgs = append(toolMsgs, m.Text())
			}
		}
		Expect(toolMsgs).To(HaveLen(2), "two tool results: the exec's and the answer to the echo call%s", evidence(prov, res))
		Expect(toolMsgs[1]).NotTo(BeEmpty(), "the model's call of a tool outside exec/wait must be answered (with an error)%s", evidence(prov, res))
		for _, q := range prov.Requests() {
			Expect(q.ToolNames()).To(Equal([]string{"exec", "wait"}),
				"request %d: with code mode enabled the provider payload must carry exactly exec and wait, none of the %d catalog tools%s", q.Seq, len(planTools()), evidence(prov, res))
		}
	})

	It("CM-E2E-03", "inside exec, the guest catalog lists the effective test tools and search, describe and call reach core, plugin and client tools", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: planTools()})
		// Through the guest dialect: 000's ALL_TOOLS and tools.* under v1,
		// 001's catalog handles under v2 (spec/protocol.md §12.13).
		code := Guest(`const names = listTools().map((t) => t.name).sort();
const hits = (await search("weather city")).map((t) => t.name);
const described = await describe("weather");
const echoed = await call("echo", {message: "core"});
const sky = await call("weather", {city: "Oslo"});
const picked = await call("pick_color", {});
return {names, found: hits.includes("weather"), params: !!(described && described.parameters), echoed, sky, picked};`)
		// A target may suspend at each nested call: the model follows waiting with wait.
		prov := StartProvider(provider.Exec(code), r.Settle())
		res := r.Turn(ctx, prov, "Use the tools.", TurnOptions{})
		Expect(res.Status).To(Equal(protocol.TurnCompleted), "the turn must complete%s", evidence(prov, res))
		last := lastResult(res, prov)
		Expect(last["status"]).To(Equal("completed"), "the exec (followed by wait while it waits) must complete%s", evidence(prov, res))
		got, _ := json.Marshal(last["value"])
		Expect(got).To(MatchJSON(`{"names":["add","echo","pick_color","slow","weather"],"found":true,"params":true,
			"echoed":{"message":"core"},"sky":{"city":"Oslo","sky":"clear"},"picked":{"tool":"pick_color"}}`),
			"the catalog (ALL_TOOLS, or the catalog handles) must list the five effective tools, search must find weather, describe must give its parameters, and call must reach the core, plugin and client tools %s%s", EnvelopeNote, evidence(prov, res))
		for _, n := range []string{"echo", "weather", "pick_color"} {
			calls := r.Tools.CallsOf(n)
			Expect(calls).To(HaveLen(1), "the call of %s must reach the harness once%s", n, evidence(prov, res))
			Expect(controlCallIDs(res)).To(ContainElement(calls[0].ParentToolCallID), "the nested %s call must name one of the model's exec/wait call ids as its parent%s", n, evidence(prov, res))
		}
	})

	It("CM-E2E-04", "inside exec, API.list and API.read describe the visible MCP server, MCP.<server>.<tool>() calls it, and MCP tools stay out of the guest catalog and its search", func(ctx SpecContext) {
		RequireFeature("mcp", "CM-E2E-04 runs a turn with an MCP server")
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: planTools(),
			MCPServers: []MCPServer{{Name: "docs", Kind: "docs", Transport: protocol.MCPTransportHTTP}}})
		// The catalog is read through the guest dialect (000's ALL_TOOLS and
		// tools.search, or 001's catalog handles); API and MCP are in both.
		code := Guest(`const paths = (l) => Array.isArray(l) ? l.map((f) => typeof f === "string" ? f : f && f.path) : l;
const isMCP = (t) => t.source === "mcp" || String(t.id).startsWith("mcp:");
const key = (t) => t.id === undefined ? t.name : t.id;
const listed = paths(await API.list("mcp"));
const dts = await API.read("mcp/docs.d.ts");
const echoName = Object.getOwnPropertyNames(MCP.docs).find((k) => k.toLowerCase() === "echo");
const echoed = echoName ? await MCP.docs[echoName]({probe: 1}) : null;
return {listed, declaresEcho: typeof dts === "string" && dts.includes("echo"), echoed: echoed !== null && echoed !== undefined,
  inAllTools: listTools().filter(isMCP).map(key), searched: (await search("echo", {limit: 50})).filter(isMCP).map(key)};`)
		before := r.MCP["docs"].HTTP.Calls()
		prov := StartProvider(provider.Exec(code), r.Settle())
		res := r.Turn(ctx, prov, "Use the docs server.", TurnOptions{})
		Expect(res.Status).To(Equal(protocol.TurnCompleted), "the turn must complete%s", evidence(prov, res))
		last := lastResult(res, prov)
		Expect(last["status"]).To(Equal("completed"), "the exec (followed by wait while it waits) must complete%s", evidence(prov, res))
		got, _ := json.Marshal(last["value"])
		var v struct {
			Listed       json.RawMessage `json:"listed"`
			DeclaresEcho bool            `json:"declaresEcho"`
			Echoed       bool            `json:"echoed"`
			InAllTools   []string        `json:"inAllTools"`
			Searched     []string        `json:"searched"`
		}
		Expect(json.Unmarshal(got, &v)).To(Succeed(), "the cell's value: %s", got)
		// The shape of API.list's answer is CM-MCP-02's (a list of file
		// metadata); this spec only reads the paths from it.
		// An entry that is neither a string nor carries a string path (the
		// cell maps it to null, as [{"file": "mcp/docs.d.ts"}]) is that shape
		// too, not a missing declaration (audit 2026-12-02-stop34, row
		// CM-E2E-04).
		var entries []*string
		Precondition("CM-MCP-02").Expect(json.Unmarshal(v.Listed, &entries)).To(Succeed(),
			"API.list(\"mcp\") must answer a list of paths or {path, …} entries before the turn's MCP checks can read it: %s", v.Listed)
		Precondition("CM-MCP-02").Expect(entries).NotTo(ContainElement(BeNil()),
			"every entry of API.list(\"mcp\") must be a path or carry a string path before the turn's MCP checks can read it: %s", v.Listed)
		listed := make([]string, len(entries))
		for i, e := range entries {
			listed[i] = *e
		}
		Expect(listed).To(ContainElement("mcp/docs.d.ts"), "API.list(\"mcp\") must list the docs server's declaration: %s%s", got, evidence(prov, res))
		Expect(v.DeclaresEcho).To(BeTrue(), "API.read(\"mcp/docs.d.ts\") must declare the echo tool: %s%s", got, evidence(prov, res))
		Expect(v.Echoed).To(BeTrue(), "MCP.docs.echo() must resolve: %s%s", got, evidence(prov, res))
		Expect(r.MCP["docs"].HTTP.Calls()-before).To(BeNumerically(">=", 1), "the echo call must reach the MCP server%s", evidence(prov, res))
		Expect(v.InAllTools).To(BeEmpty(), "MCP tools must be absent from the guest catalog (ALL_TOOLS, or the catalog handles): %s", got)
		Expect(v.Searched).To(BeEmpty(), "MCP tools must be absent from the catalog search (tools.search, or catalog.search): %s", got)
		for _, q := range prov.Requests() {
			Expect(q.ToolNames()).To(Equal([]string{"exec", "wait"}), "request %d: MCP tools stay behind exec%s", q.Seq, evidence(prov, res))
		}
	})

	It("CM-E2E-05", "denied tools are absent from the guest catalog and no route the cell has reaches them in a turn (name, global, and the guessed id where the cell has tools)", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: planTools(), Policy: &protocol.Policy{Deny: []string{"weather"}}})
		// The guessed id is the subject (000's tools.call, where the cell has
		// it); the dialect's call by name and the callable name's global
		// (001, spec/protocol.md §12.13) are tried too, and the catalog is
		// read through the dialect.
		code := Guest(`let caught = 0;
const routes = [() => call("weather", {city: "Oslo"}), () => globalThis.weather({city: "Oslo"})];
if (typeof tools !== "undefined" && tools !== null) routes.push(() => tools.call("plugin:forecast:weather", {city: "Oslo"}));
for (const route of routes) { try { await route(); } catch (e) { if (String(e && e.message).startsWith("codemode-dialect:")) throw e; caught++; } }
return {names: listTools().map((t) => t.name).sort(), caught: caught === routes.length};`)
		prov := StartProvider(provider.Exec(code), r.Settle())
		res := r.Turn(ctx, prov, "Try the weather.", TurnOptions{})
		Expect(res.Status).To(Equal(protocol.TurnCompleted), "the turn must complete%s", evidence(prov, res))
		for _, q := range prov.Requests() {
			Expect(q.ToolNames()).To(Equal([]string{"exec", "wait"}), "request %d: the provider payload carries exec and wait only%s", q.Seq, evidence(prov, res))
		}
		last := lastResult(res, prov)
		Expect(last["status"]).To(Equal("completed"), "the exec (followed by wait while it waits) must complete%s", evidence(prov, res))
		got, _ := json.Marshal(last["value"])
		Expect(got).To(MatchJSON(`{"names":["add","echo","pick_color","slow"],"caught":true}`),
			"the denied weather tool must be absent from the guest catalog, and every route to it (its guessed id plugin:forecast:weather where the cell has tools, its name, its global) must throw%s", evidence(prov, res))
		Expect(r.Tools.CallsOf("weather")).To(BeEmpty(), "a denied tool must never be invoked%s", evidence(prov, res))
	})

	It("CM-E2E-06", "a nested call that resolves after exec returned waiting is delivered by wait, and the final answer carries output made after the restore", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 1000}), Tools: planTools()})
		code := Guest(`const x = (await call("slow", {ms: 1500, tag: "late"})); text("after restore: " + x.tag); return x.slept;`)
		prov := StartProvider(provider.Exec(code), r.Settle())
		res := r.Turn(ctx, prov, "Wait for the slow tool.", TurnOptions{})
		Expect(res.Status).To(Equal(protocol.TurnCompleted), "the turn must complete%s", evidence(prov, res))
		results := toolResults(res)
		Expect(len(results)).To(BeNumerically(">=", 2), "exec and at least one wait%s", evidence(prov, res))
		Expect(results[0]["status"]).To(Equal("waiting"), "a cell awaiting a 1500 ms nested call with timeoutMs 1000 must return waiting from exec%s", evidence(prov, res))
		last := results[len(results)-1]
		Expect(last["status"]).To(Equal("completed"), "the wait must deliver the nested result and complete the cell%s", evidence(prov, res))
		Expect(last["value"]).To(BeNumerically("==", 1500), "the restored cell returns the nested call's result %s%s", EnvelopeNote, evidence(prov, res))
		Expect(res.Text).To(ContainSubstring("after restore: late"), "the final answer must contain the output the cell made after its restore%s", evidence(prov, res))
	})

	It("CM-E2E-07", "timeout, abort and snapshot expiry during agent turns clean up the runtime state", func(ctx SpecContext) {
		SelfReported("live VMs and snapshots back to the baseline after a timed-out cell, an abort and an expiry, as runtime.stats reports them")
		base := Stats(ctx)
		// Timeout: a cell that never ends fails with timeout and leaves nothing.
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 500}), Tools: planTools()})
		prov := StartProvider(provider.Exec("while (true) {}"), provider.FinalFromLast())
		res := r.Turn(ctx, prov, "Loop.", TurnOptions{})
		results := toolResults(res)
		Expect(results).To(HaveLen(1), "one exec result%s", evidence(prov, res))
		Expect(results[0]["status"]).To(Equal("failed"), "a cell past timeoutMs must fail%s", evidence(prov, res))
		Expect(results[0]["code"]).To(Equal("timeout"), "a cell past timeoutMs must fail with code timeout%s", evidence(prov, res))
		st := Stats(ctx)
		Expect(st.LiveVMs).To(Equal(base.LiveVMs), "timeout: a VM is still live after the turn")
		Expect(st.Snapshots).To(Equal(base.Snapshots), "timeout: a snapshot is left after the turn")

		// suspended runs a turn whose exec leaves a waiting cell, and returns its runId.
		suspended := func(r *Run) string {
			prov := StartProvider(provider.Exec(Guest(`await call("slow", {ms: 3000}); return 1;`)), provider.Final("later"))
			res := r.Turn(ctx, prov, "Start the slow job.", TurnOptions{})
			results := toolResults(res)
			Expect(results).To(HaveLen(1), "one exec result%s", evidence(prov, res))
			Expect(results[0]["status"]).To(Equal("waiting"), "a cell awaiting a 3000 ms call with timeoutMs 1000 must return waiting%s", evidence(prov, res))
			Expect(Stats(ctx).Snapshots).To(Equal(base.Snapshots+1), "the waiting cell must hold one snapshot above the baseline")
			return results[0]["runId"].(string)
		}
		// waitFails resumes runID in a new turn and requires the wait to fail.
		waitFails := func(r *Run, runID, why string) {
			prov := StartProvider(provider.Call("wait", map[string]any{"runId": runID}), provider.FinalFromLast())
			res := r.Turn(ctx, prov, "Resume.", TurnOptions{})
			results := toolResults(res)
			Expect(results).To(HaveLen(1), "one wait result%s", evidence(prov, res))
			Expect(results[0]["status"]).To(Equal("failed"), "%s: wait on its cell must fail%s", why, evidence(prov, res))
		}
		// Abort.
		r = NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 1000}), Tools: planTools()})
		id := suspended(r)
		r.Abort(ctx)
		st = Stats(ctx)
		Expect(st.Snapshots).To(Equal(base.Snapshots), "aborted: the snapshot is kept")
		Expect(st.LiveVMs).To(Equal(base.LiveVMs), "aborted: a VM is still live")
		waitFails(r, id, "after run.abort")
		// Expiry.
		r = NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 1000, "snapshotTtlSeconds": 1}), Tools: planTools()})
		id = suspended(r)
		Eventually(func(g Gomega) {
			g.Expect(Stats(ctx).Snapshots).To(Equal(base.Snapshots), "snapshots back to the baseline once snapshotTtlSeconds (1 s) passed")
		}).WithTimeout(10*1e9).WithPolling(200*1e6).Should(Succeed(), "expired: the snapshot outlived snapshotTtlSeconds")
		waitFails(r, id, "after the snapshot expired")
	})

	It("CM-ACT-09", "a tool added to the provider payload after activation makes the turn fail closed before anything is sent", func(ctx SpecContext) {
		RequireFeature("fault-injection", "CM-ACT-09 asks agent.turn to add a tool after activation (faults.addProviderTool)")
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: planTools()})
		prov := StartProvider(provider.Final("sent"))
		res := r.Turn(ctx, prov, "Hello.", TurnOptions{Faults: &protocol.AgentTurnFaults{AddProviderTool: "echo"}})
		Expect(prov.Requests()).To(BeEmpty(), "a payload whose tools are not exactly exec and wait must never reach the provider%s", evidence(prov, res))
		Expect(res.Status).To(Equal(protocol.TurnFailed), "the turn must fail closed%s", evidence(prov, res))
		Expect(res.Code).To(Equal(protocol.TurnToolSurfaceMismatch), "the failure names the final check%s", evidence(prov, res))
		// Control: the same run's turn without the added tool is sent.
		ok := StartProvider(provider.Final("sent"))
		res = r.Turn(ctx, ok, "Hello.", TurnOptions{})
		Expect(res.Status).To(Equal(protocol.TurnCompleted), "control: without the added tool the turn completes%s", evidence(ok, res))
		Expect(ok.Requests()).To(HaveLen(1), "control: one request%s", evidence(ok, res))
		Expect(ok.Requests()[0].ToolNames()).To(Equal([]string{"exec", "wait"}), "control: exactly exec and wait%s", evidence(ok, res))
	})
})

// canonicalTools marshals tool functions with their schemas canonicalised,
// so that key order and spacing do not count.
func canonicalTools(fs []protocol.ChatFunction) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		var schema any
		_ = json.Unmarshal(f.Parameters, &schema)
		b, _ := json.Marshal(map[string]any{"name": f.Name, "description": f.Description, "parameters": schema})
		out = append(out, string(b))
	}
	slices.Sort(out) // a tool list is a set to the model; only names, descriptions and parameters must be unchanged
	return out
}
