package e2e

import (
	"encoding/json"
	"fmt"

	"github.com/codemode-conformance/codemode/fakes/provider"
	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/gomega"
)

var _ = Describe("e2e", "end-to-end plan: agent turns through the fake model provider", func() {
	It("CM-E2E-01", "with code mode disabled, a turn sends the direct tools unchanged to the provider and runs the model's direct call", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: map[string]any{"enabled": false}, Tools: planTools()})
		prov := StartProvider(provider.Call("add", map[string]any{"a": 2, "b": 3}), provider.Final("five"))
		res := r.Turn(ctx, prov, "Add 2 and 3.", TurnOptions{})
		Expect(res.Status).To(Equal(protocol.TurnCompleted), "the turn must complete%s", evidence(prov, res))
		reqs := prov.Requests()
		Expect(reqs).To(HaveLen(2), "one request for the tool call, one with its result%s", evidence(prov, res))
		var want []protocol.ChatFunction
		for _, s := range r.Tools.Specs() {
			want = append(want, protocol.ChatFunction{Name: s.Name, Description: s.Description, Parameters: s.Parameters})
		}
		for _, q := range reqs {
			var got []protocol.ChatFunction
			for _, t := range q.Tools {
				got = append(got, t.Function)
			}
			Expect(cmp.Diff(canonicalTools(want), canonicalTools(got))).To(BeEmpty(),
				"request %d: with code mode disabled the provider must receive the run's tools unchanged (names, descriptions, parameters) (-want +got)%s", q.Seq, evidence(prov, res))
		}
		Expect(r.Tools.CallsOf("add")).To(HaveLen(1), "the model's direct add call must reach the harness once%s", evidence(prov, res))
		Expect(r.Tools.CallsOf("add")[0].ParentToolCallID).To(BeEmpty(), "a direct call has no parent exec/wait")
		results := reqs[1].ToolResults()
		Expect(results).To(HaveKey(reqs[0].Reply.ToolCalls[0].ID), "the result must come back as a tool message naming the call id%s", evidence(prov, res))
		Expect(results[reqs[0].Reply.ToolCalls[0].ID]).To(MatchJSON(`{"sum":5}`), "the direct call's result%s", evidence(prov, res))
		Expect(res.Text).To(Equal("five"), "the turn's final text is the model's%s", evidence(prov, res))
	})

	It("CM-E2E-02", "with code mode enabled and core, plugin, MCP and client tools, every provider request carries exactly exec and wait", func(ctx SpecContext) {
		o := RunOptions{CodeMode: true, Tools: planTools()}
		if Features().Has("mcp") {
			o.MCPServers = []MCPServer{{Name: "docs", Kind: "docs", Transport: protocol.MCPTransportHTTP}}
		}
		r := NewRun(ctx, o)
		prov := StartProvider(provider.Exec("return ALL_TOOLS.length"), provider.Final("done"))
		res := r.Turn(ctx, prov, "How many tools are there?", TurnOptions{})
		Expect(res.Status).To(Equal(protocol.TurnCompleted), "the turn must complete%s", evidence(prov, res))
		Expect(prov.Requests()).To(HaveLen(2), "one request for exec, one with its result%s", evidence(prov, res))
		for _, q := range prov.Requests() {
			Expect(q.ToolNames()).To(Equal([]string{"exec", "wait"}),
				"request %d: with code mode enabled the provider payload must carry exactly exec and wait, none of the %d catalog tools%s", q.Seq, len(planTools()), evidence(prov, res))
		}
	})

	It("CM-E2E-03", "inside exec, ALL_TOOLS lists the effective test tools and search, describe and call reach core, plugin and client tools", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: planTools()})
		code := Guest(`const names = ALL_TOOLS.map((t) => t.name).sort();
const hits = (await tools.search("weather city")).map((t) => t.name);
const described = await tools.describe(id("weather"));
const echoed = callValue(id("echo"), await tools.call(id("echo"), {message: "core"}));
const sky = callValue(id("weather"), await tools.call(id("weather"), {city: "Oslo"}));
const picked = callValue(id("pick_color"), await tools.call(id("pick_color"), {}));
return {names, found: hits.includes("weather"), params: !!(described && described.parameters), echoed, sky, picked};`)
		prov := StartProvider(provider.Exec(code), provider.FinalFromLast())
		res := r.Turn(ctx, prov, "Use the tools.", TurnOptions{})
		Expect(res.Status).To(Equal(protocol.TurnCompleted), "the turn must complete%s", evidence(prov, res))
		results := toolResults(res)
		Expect(results).To(HaveLen(1), "one exec result%s", evidence(prov, res))
		Expect(results[0]["status"]).To(Equal("completed"), "the exec must complete%s", evidence(prov, res))
		got, _ := json.Marshal(results[0]["value"])
		Expect(got).To(MatchJSON(`{"names":["add","echo","pick_color","slow","weather"],"found":true,"params":true,
			"echoed":{"message":"core"},"sky":{"city":"Oslo","sky":"clear"},"picked":{"tool":"pick_color"}}`),
			"ALL_TOOLS must list the five effective tools, search must find weather, describe must give its parameters, and call must reach the core, plugin and client tools %s%s", EnvelopeNote, evidence(prov, res))
		for _, n := range []string{"echo", "weather", "pick_color"} {
			calls := r.Tools.CallsOf(n)
			Expect(calls).To(HaveLen(1), "tools.call of %s must reach the harness once%s", n, evidence(prov, res))
			Expect(calls[0].ParentToolCallID).To(Equal(toolCalls(res)[0].ID), "the nested %s call must name the model's exec call id as its parent%s", n, evidence(prov, res))
		}
	})

	It("CM-E2E-05", "denied tools are absent from ALL_TOOLS and cannot be called with a guessed id in a turn", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: planTools(), Policy: &protocol.Policy{Deny: []string{"weather"}}})
		code := `let caught = null;
try { await tools.call("plugin:forecast:weather", {city: "Oslo"}); } catch (e) { caught = String(e && e.message || e); }
return {names: ALL_TOOLS.map((t) => t.name).sort(), caught: caught !== null};`
		prov := StartProvider(provider.Exec(code), provider.FinalFromLast())
		res := r.Turn(ctx, prov, "Try the weather.", TurnOptions{})
		Expect(res.Status).To(Equal(protocol.TurnCompleted), "the turn must complete%s", evidence(prov, res))
		for _, q := range prov.Requests() {
			Expect(q.ToolNames()).To(Equal([]string{"exec", "wait"}), "request %d: the provider payload carries exec and wait only%s", q.Seq, evidence(prov, res))
		}
		results := toolResults(res)
		Expect(results).To(HaveLen(1), "one exec result%s", evidence(prov, res))
		got, _ := json.Marshal(results[0]["value"])
		Expect(got).To(MatchJSON(`{"names":["add","echo","pick_color","slow"],"caught":true}`),
			"the denied weather tool must be absent from ALL_TOOLS and its guessed id plugin:forecast:weather must throw%s", evidence(prov, res))
		Expect(r.Tools.CallsOf("weather")).To(BeEmpty(), "a denied tool must never be invoked%s", evidence(prov, res))
	})

	It("CM-E2E-06", "a nested call that resolves after exec returned waiting is delivered by wait, and the final answer carries output made after the restore", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 1000}), Tools: planTools()})
		code := Guest(`const x = callValue(id("slow"), await tools.call(id("slow"), {ms: 1500, tag: "late"})); text("after restore: " + x.tag); return x.slept;`)
		prov := StartProvider(provider.Exec(code), provider.Settle())
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
	return out
}

var _ = fmt.Sprintf
var _ = tools.Standard
