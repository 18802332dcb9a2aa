package namespaces

import (
	"fmt"

	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

// sentinel is guest code that would show it ran: output and a nested call.
var sentinel = Guest(`text("guest code ran"); await call("echo", {ran: true}); return "ran";`)

var _ = Describe("namespaces", "namespace scopes", func() {
	It("CM-NS-04", "createScope runs once per run with the run's context, and never for a hidden namespace", func(ctx SpecContext) {
		scope := map[string]any{"ctx": map[string]any{
			"agentId": ScopeContext(protocol.ContextAgentID), "sessionKey": ScopeContext(protocol.ContextSessionKey),
			"sessionId": ScopeContext(protocol.ContextSessionID), "runId": ScopeContext(protocol.ContextRunID),
			"config": ScopeContext(protocol.ContextConfig), "aborted": ScopeContext(protocol.ContextAborted),
			"instance": ScopeContext(protocol.ContextInstance),
		}, "list": NamespaceTool(listTool)}
		reg := Registration(plugin, nsID, global, []string{listTool}, scope, nil)
		reg.Config = []byte(`{"owner":"octo","limit":3}`)
		// A hidden namespace whose factory would be rejected if it ran.
		hidden := Registration("evil", "evil-ns", "Evil", []string{"evil_tool"}, map[string]any{"steal": RawFunction("steal")}, nil)
		read := `return {ctx: Issues.ctx, evil: typeof Evil};`
		r := NamespaceRun(ctx, RunOptions{CodeMode: true, Tools: githubTools(plugin), Namespaces: register(reg, hidden)})
		first, _ := r.RunToCompletion(ctx, read)
		Expect(first).To(BeCompleted(), "a run with a visible namespace and a hidden one whose scope is invalid must run: the hidden factory must never run")
		got, _ := first.ValueAny().(map[string]any)
		c, _ := got["ctx"].(map[string]any)
		rc := r.Params.RunContext
		want := map[string]any{"agentId": rc.AgentID, "sessionKey": rc.SessionKey, "sessionId": rc.SessionID, "runId": r.ID,
			"config": map[string]any{"owner": "octo", "limit": float64(3)}, "aborted": false}
		for k, v := range Sorted(want) {
			Expect(c).To(HaveKeyWithValue(k, v), "createScope's ctx.%s must be the run's (run.prepare %s): got %v", k, r.ID, c)
		}
		Expect(c["instance"]).To(BeAssignableToTypeOf(""), "ctx instance is the id of the createScope call: %v", c)
		Expect(got["evil"]).To(Equal("undefined"), "the hidden namespace must not be visible")

		second, _ := r.RunToCompletion(ctx, read)
		got2, _ := second.ValueAny().(map[string]any)
		c2, _ := got2["ctx"].(map[string]any)
		Expect(c2["instance"]).To(Equal(c["instance"]), "a second cell of the same run must see the same scope: createScope is called once per run, not per cell")

		// No new registration: the registry still holds the same one, so a
		// scope cached per registration instead of created per run shows.
		other := NewRun(ctx, RunOptions{CodeMode: true, Tools: githubTools(plugin)})
		third, _ := other.RunToCompletion(ctx, read)
		got3, _ := third.ValueAny().(map[string]any)
		c3, _ := got3["ctx"].(map[string]any)
		Expect(c3["instance"]).NotTo(Equal(c["instance"]), "another run must get its own createScope call")
		Expect(c3["agentId"]).To(Equal(other.Params.AgentID), "another run's scope carries that run's agentId")
		Expect(c3["runId"]).To(Equal(other.ID), "another run's scope carries that run's runId")
	})

	It("CM-NS-07", "raw functions, cycles, unsafe segments, non-identifier globalNames and built-in collisions are rejected before any guest code runs", func(ctx SpecContext) {
		base := func() map[string]any { return map[string]any{"list": NamespaceTool(listTool)} }
		type bad struct {
			name   string
			global string
			scope  map[string]any
			shared map[string]any
		}
		with := func(k string, v any) map[string]any { s := base(); s[k] = v; return s }
		cases := []bad{
			{"a raw function", global, with("raw", RawFunction("listIssues")), nil},
			{"a raw function deep inside", global, with("deep", map[string]any{"inner": []any{1, RawFunction("x")}}), nil},
			{"a circular graph", global, with("node", SharedRef("a")), map[string]any{"a": map[string]any{"next": SharedRef("b")}, "b": map[string]any{"back": SharedRef("a")}}},
			{"an object that contains itself", global, with("self", SharedRef("s")), map[string]any{"s": map[string]any{"me": SharedRef("s")}}},
			{"a __proto__ key", global, with("__proto__", map[string]any{"polluted": true}), nil},
			{"a nested __proto__ key", global, with("deep", map[string]any{"__proto__": map[string]any{"x": 1}}), nil},
			{"a constructor key", global, with("constructor", "x"), nil},
			{"a prototype key", global, with("prototype", map[string]any{}), nil},
			{"an empty key", global, with("", 1), nil},
			{"a key with the path separator", global, with("a.b", NamespaceTool(listTool)), nil},
		}
		for _, g := range []string{"2fast", "my-issues", "Issues!", "", "class", "tools", "namespaces", "text", "json", "yield_control", "ALL_TOOLS", "MCP", "API", "__openclaw", "__openclawBridge"} {
			cases = append(cases, bad{fmt.Sprintf("globalName %q", g), g, base(), nil})
		}
		for _, c := range cases {
			reg := Registration(plugin, nsID, c.global, []string{listTool}, c.scope, c.shared)
			r := NamespaceRun(ctx, RunOptions{CodeMode: true, Tools: githubTools(plugin), Namespaces: register(reg)})
			res := r.Exec(ctx, sentinel)
			Expect(res).To(BeFailed(), "a namespace scope with %s must be rejected before any guest code runs: the exec must fail", c.name)
			Expect(res.Output).To(BeEmpty(), "with %s no guest code may run (it would write output)", c.name)
			Expect(r.Tools.Calls()).To(BeEmpty(), "with %s no guest code may run (it would call echo)", c.name)
		}
		// The same registration without a defect runs the guest code.
		ok := NamespaceRun(ctx, RunOptions{CodeMode: true, Tools: githubTools(plugin), Namespaces: register(Registration(plugin, nsID, global, []string{listTool}, base(), nil))})
		res, _ := ok.RunToCompletion(ctx, sentinel)
		Expect(res).To(CompleteWith("ran"), "the control registration (no defect) must let guest code run")
	})

	It("CM-NS-08", "nested objects and shared references serialise correctly, and non-JSON values arrive as JSON-safe fallbacks", func(ctx SpecContext) {
		scope := map[string]any{
			"repo":    map[string]any{"owner": "octo", "meta": map[string]any{"labels": []any{"bug", "ui"}, "deep": map[string]any{"x": 1, "list": []any{map[string]any{"y": true}}}}},
			"home":    SharedRef("addr"),
			"work":    SharedRef("addr"),
			"both":    []any{SharedRef("addr"), SharedRef("addr")},
			"list":    SharedRef("lister"),
			"again":   map[string]any{"list": SharedRef("lister")},
			"odd":     map[string]any{"nan": NonJSON(protocol.NonJSONNaN, "NaN"), "inf": NonJSON(protocol.NonJSONInfinity, "Infinity"), "big": NonJSON(protocol.NonJSONBigInt, "12345678901234567890"), "when": NonJSON(protocol.NonJSONDate, "2026-11-30T00:00:00.000Z"), "gone": NonJSON(protocol.NonJSONUndefined, ""), "sym": NonJSON(protocol.NonJSONSymbol, "Symbol(x)"), "bytes": NonJSON(protocol.NonJSONBinary, "3 bytes"), "client": NonJSON(protocol.NonJSONInstance, "GithubClient")},
			"oddList": []any{NonJSON(protocol.NonJSONUndefined, ""), 1},
		}
		shared := map[string]any{"addr": map[string]any{"city": "Turin", "geo": map[string]any{"lat": 45.07}}, "lister": NamespaceTool(listTool)}
		r := NamespaceRun(ctx, RunOptions{CodeMode: true, Tools: githubTools(plugin),
			Namespaces: register(Registration(plugin, nsID, global, []string{listTool}, scope, shared))})
		res, _ := r.RunToCompletion(ctx, `const a = await Issues.list({state: "open"}); const b = await Issues.again.list({state: "closed"});
const safe = (v) => v === null || ["string", "number", "boolean"].includes(typeof v) && (typeof v !== "number" || Number.isFinite(v)) ||
  (Array.isArray(v) ? v.every(safe) : typeof v === "object" && Object.values(v).every(safe));
const odd = Issues.odd;
return {repo: Issues.repo, home: Issues.home, work: Issues.work, both: Issues.both, calls: [a[0].state, b[0].state],
  oddSafe: safe(odd), oddTypes: Object.fromEntries(Object.entries(odd).map(([k, v]) => [k, typeof v])), gone: odd.gone === undefined || odd.gone === null,
  oddListSafe: safe(Issues.oddList), oddListLength: Issues.oddList.length, roundTrip: JSON.stringify(JSON.parse(JSON.stringify(odd))) === JSON.stringify(odd)};`)
		Expect(res).To(BeCompleted(), "the cell reading the nested and shared scope must complete")
		v, _ := res.ValueAny().(map[string]any)
		addr := map[string]any{"city": "Turin", "geo": map[string]any{"lat": 45.07}}
		Expect(v["repo"]).To(Equal(map[string]any{"owner": "octo", "meta": map[string]any{"labels": []any{"bug", "ui"}, "deep": map[string]any{"x": float64(1), "list": []any{map[string]any{"y": true}}}}}), "nested objects must arrive whole: %s", res.Value)
		Expect(v["home"]).To(Equal(addr), "a shared (non-circular) object must arrive at its first path: %s", res.Value)
		Expect(v["work"]).To(Equal(addr), "a shared (non-circular) object must arrive at its second path too: %s", res.Value)
		Expect(v["both"]).To(Equal([]any{addr, addr}), "a shared object twice in one array must arrive twice: %s", res.Value)
		Expect(v["calls"]).To(Equal([]any{"open", "closed"}), "one callable marker shared by two paths must be callable at both: %s", res.Value)
		Expect(v["oddSafe"]).To(BeTrue(), "non-JSON scope values (NaN, Infinity, BigInt, Date, undefined, Symbol, binary, a class instance) must arrive as JSON-safe values: %s", res.Value)
		Expect(v["gone"]).To(BeTrue(), "an undefined scope member must arrive absent or null: %s", res.Value)
		Expect(v["oddListSafe"]).To(BeTrue(), "an undefined array element must arrive JSON-safe: %s", res.Value)
		Expect(v["oddListLength"]).To(Equal(float64(2)), "an undefined array element keeps its place: %s", res.Value)
		Expect(v["roundTrip"]).To(BeTrue(), "the fallbacks must survive a JSON round trip unchanged: %s", res.Value)
	})
})
