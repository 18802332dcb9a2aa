package namespaces

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

// forgeCell is guest code that tries to run namespace "admin-ns" (hidden)
// and an undeclared path of Issues by every means it can reach: tampering
// with the frozen namespace objects, calling the namespace functions with a
// forged receiver, and calling every function reachable from globalThis
// whose name suggests a bridge with forged (namespace id, path, args). It
// returns what it tried and never throws.
const forgeCell = `const tried = [];
const attempt = (what, f) => { tried.push(what); try { const p = f(); if (p && typeof p.then === "function") return p.then(() => {}, () => {}); } catch (e) {} };
const waits = [];
attempt("replace Issues.list", () => { Issues.list = () => 0; });
attempt("define namespaces.Admin", () => Object.defineProperty(namespaces, "Admin", {value: {}}));
attempt("define Issues.wipe", () => Object.defineProperty(Issues, "wipe", {value: Issues.list}));
waits.push(attempt("forged receiver", () => Issues.list.call({namespace: "admin-ns", path: "wipe", id: "admin-ns"}, {})));
waits.push(attempt("forged args", () => Issues.list({namespace: "admin-ns", path: "wipe"}, "admin-ns", "wipe")));
const forged = [["admin-ns", "wipe", [{}]], ["github-issues", "delete", [{}]], ["github-issues", "list.__proto__", []], ["github-issues", "", []], [{namespace: "admin-ns", path: "wipe", args: [{}]}], ["admin-ns.wipe", {}]];
const seen = new Set();
const walk = (o, path, depth) => {
  if (o === null || (typeof o !== "object" && typeof o !== "function") || seen.has(o) || depth > 3) return;
  seen.add(o);
  let names = [];
  try { names = Object.getOwnPropertyNames(o); } catch (e) { return; }
  for (const n of names) {
    let v; try { v = o[n]; } catch (e) { continue; }
    if (typeof v === "function" && /namespace|bridge|invoke|dispatch|request|call/i.test(n) && !/^(call|apply|bind)$/.test(n) && path.length < 60) {
      for (const args of forged) waits.push(attempt(path + "." + n, () => v(...args)));
    }
    walk(v, path + "." + n, depth + 1);
  }
};
walk(globalThis, "globalThis", 0);
await Promise.all(waits);
return tried.length;`

var _ = Describe("namespaces", "namespace calls", func() {
	It("CM-NS-03", "callable paths cannot reach undeclared tools, and forged namespace ids and paths from guest code are rejected", func(ctx SpecContext) {
		wipe := tools.Plugin("admin", "admin_wipe", "Wipe everything.", nil, func(context.Context, json.RawMessage) (any, error) { return "wiped", nil })
		del := tools.Plugin(plugin, "github_delete_repo", "Delete the repository.", nil, func(context.Context, json.RawMessage) (any, error) { return "deleted", nil })
		ts := append(githubTools(plugin), wipe, del)
		// admin-ns is hidden: admin_audit is missing.
		admin := Registration("admin", "admin-ns", "Admin", []string{"admin_wipe", "admin_audit"}, map[string]any{"wipe": NamespaceTool("admin_wipe")}, nil)
		r := NamespaceRun(ctx, RunOptions{CodeMode: true, Tools: ts, Namespaces: register(issues(), admin)})
		res, _ := r.RunToCompletion(ctx, forgeCell)
		Expect(res).To(BeCompleted(), "the forging cell catches everything and must complete")
		Expect(res.ValueAny()).To(BeNumerically(">=", 5), "the forging cell must have tried at least its five direct attempts: %s", res.Value)
		Expect(r.Tools.CallsOf("admin_wipe")).To(BeEmpty(), "a forged call of hidden namespace admin-ns must never run its tool admin_wipe")
		Expect(r.Tools.CallsOf("github_delete_repo")).To(BeEmpty(), "a forged path of Issues must never run a tool outside its requiredToolNames")
		Expect(r.RefusedInvokes()).To(BeEmpty(), "no forged tool.invoke may reach the harness")
		after, _ := r.RunToCompletion(ctx, `return (await Issues.list({state: "open"})).length;`)
		Expect(after).To(CompleteWith(2), "the real namespace keeps working after the forging attempts")

		// A callable whose tool is not in requiredToolNames: never runs it,
		// whether the target rejects the scope or the call.
		scope := issuesScope()
		scope["deleteRepo"] = NamespaceTool("github_delete_repo")
		reg := issues()
		reg.Scope, _ = json.Marshal(scope)
		u := NamespaceRun(ctx, RunOptions{CodeMode: true, Tools: ts, Namespaces: register(reg)})
		res, _ = u.RunToCompletion(ctx, `try { await Issues.deleteRepo({}); return "called"; } catch (e) { return "rejected"; }`)
		if res.Status == result.StatusCompleted {
			Expect(res).To(CompleteWith("rejected"), "a callable targeting github_delete_repo (not in requiredToolNames) must reject when called")
		} else {
			Expect(res).To(BeFailed(), "a scope whose callable targets an undeclared tool may instead be rejected before guest code runs")
		}
		Expect(u.Tools.CallsOf("github_delete_repo")).To(BeEmpty(), "a callable path must never run a tool outside requiredToolNames")
	})

	It("CM-NS-05", "namespace calls run the plugin's catalog tool as nested tool calls with the run's context and return JSON-safe details", func(ctx SpecContext) {
		r := NamespaceRun(ctx, RunOptions{CodeMode: true, Tools: githubTools(plugin), Namespaces: register(issues())})
		res := r.Exec(ctx, `const u = await Issues.update(7, {title: "Ünïcode ✓", labels: ["a"], n: 1.5});
return {u, plain: JSON.stringify(u) === JSON.stringify(JSON.parse(JSON.stringify(u)))};`)
		res, _ = r.Follow(ctx, res)
		Expect(res).To(CompleteWith(map[string]any{"u": map[string]any{"updated": map[string]any{"number": 7, "patch": map[string]any{"title": "Ünïcode ✓", "labels": []any{"a"}, "n": 1.5}}}, "plain": true}),
			"Issues.update must resolve to the tool's own JSON value")
		calls := r.Tools.CallsOf(updateTool)
		Expect(calls).To(HaveLen(1), "one namespace call is one nested call of %s", updateTool)
		c := calls[0]
		Expect(c.Source).To(Equal(protocol.SourcePlugin), "the nested call runs the plugin tool: %+v", c)
		Expect(c.Owner).To(Equal(plugin), "the nested call runs plugin %s's tool: %+v", plugin, c)
		Expect(c.CatalogID).To(Equal("plugin:github:"+updateTool), "the nested call names the tool's catalog id: %+v", c)
		Expect(c.Context).To(Equal(r.Params.RunContext), "the nested call carries the run's context, as tools.call's do")
		Expect(c.ParentToolCallID).NotTo(BeEmpty(), "the nested call names the exec that made it")
		if Features().Has("telemetry") {
			Expect(res.Telemetry.CalledToolIDs).To(ContainElement("plugin:github:"+updateTool), "telemetry counts a namespace call as a catalog call: %s", res.Raw)
		}
		// Policy: a denied backing tool is not callable through the namespace.
		denied := NamespaceRun(ctx, RunOptions{CodeMode: true, Tools: githubTools(plugin), Policy: &protocol.Policy{Deny: []string{updateTool}}, Namespaces: register(issues())})
		res, _ = denied.RunToCompletion(ctx, `try { await globalThis.Issues.update(1, {}); return "called"; } catch (e) { return "refused"; }`)
		Expect(res).To(CompleteWith("refused"), "with %s denied the namespace call must not run", updateTool)
		Expect(denied.Tools.CallsOf(updateTool)).To(BeEmpty(), "a denied tool must not run through a namespace")

		// Abort: run.abort cancels an in-flight namespace call as it cancels
		// tools.call's (tool.cancel), and the cell cannot go on.
		hold := tools.Plugin(plugin, listTool, "List issues, slowly.", nil, func(c context.Context, in json.RawMessage) (any, error) {
			<-c.Done()
			return nil, c.Err()
		})
		ab := NamespaceRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 500}), Tools: []tools.Tool{hold, updateIssue(plugin)}, Namespaces: register(issues())})
		w := ab.Exec(ctx, `await Issues.list({}); return "listed";`)
		Expect(w).To(BeWaiting(), "a namespace call that never returns leaves the cell waiting")
		Eventually(ab.Tools.Active).WithTimeout(5*time.Second).Should(Equal(1), "the namespace call reached the harness")
		ab.Abort(ctx)
		Eventually(ab.Tools.Canceled).WithTimeout(5*time.Second).Should(Equal(1), "run.abort must cancel the in-flight namespace call (tool.cancel), as for tools.call")
		Expect(ab.Wait(ctx, w.RunID)).To(BeFailed(), "an aborted run's namespace call cannot be resumed")
	})

	It("CM-NS-06", "the input mapper turns guest arguments into the tool input; without one the first argument or {} is used", func(ctx SpecContext) {
		r := NamespaceRun(ctx, RunOptions{CodeMode: true, Tools: githubTools(plugin), Namespaces: register(issues())})
		res, _ := r.RunToCompletion(ctx, `await Issues.list({state: "open"}, "ignored"); await Issues.list(); await Issues.update(42, {title: "t"}); await Issues.update(5); return "ok";`)
		Expect(res).To(CompleteWith("ok"), "the mapper cell must complete")
		var inputs []string
		for _, c := range r.Tools.Calls() {
			inputs = append(inputs, c.Tool+" "+compact(c.Input))
		}
		Expect(inputs).To(Equal([]string{
			listTool + ` {"state":"open"}`,
			listTool + ` {}`,
			updateTool + ` {"number":42,"patch":{"title":"t"}}`,
			updateTool + ` {"number":5}`,
		}), "tool inputs: list passes its first argument (or {}), update maps ([number, patch]) => ({number, patch})")
	})

	It("CM-NS-10", "an error of a namespace call can be caught by guest code as plain data", func(ctx SpecContext) {
		failing := tools.Plugin(plugin, listTool, "List issues.", nil, func(context.Context, json.RawMessage) (any, error) {
			return nil, protocol.ToolError("rate limited: retry later", map[string]any{"retryAfter": 3})
		})
		r := NamespaceRun(ctx, RunOptions{CodeMode: true, Tools: []tools.Tool{failing, updateIssue(plugin)}, Namespaces: register(issues())})
		res, _ := r.RunToCompletion(ctx, `try { await Issues.list({}); return "no error"; } catch (e) {
  return {message: String(e && e.message), plain: JSON.parse(JSON.stringify({name: e.name, message: e.message})).message === e.message}; }`)
		Expect(res).To(BeCompleted(), "a failing namespace call must be catchable: the cell catches it and completes")
		v, _ := res.ValueAny().(map[string]any)
		Expect(v["message"]).To(ContainSubstring("rate limited"), "the caught error carries the tool's message: %s", res.Value)
		Expect(v["plain"]).To(BeTrue(), "the caught error is plain data: %s", res.Value)
	})

	It("CM-NS-11", "a namespace call still pending at the time budget suspends the cell, and wait resumes it in the same namespace runtime", func(ctx SpecContext) {
		gate := make(chan struct{})
		var once sync.Once
		open := func() { once.Do(func() { close(gate) }) }
		defer open()
		slow := tools.Plugin(plugin, listTool, "List issues slowly.", nil, func(c context.Context, in json.RawMessage) (any, error) {
			select {
			case <-gate:
			case <-c.Done():
				return nil, c.Err()
			}
			return []any{map[string]any{"number": 1}}, nil
		})
		r := NamespaceRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 1000}), Tools: []tools.Tool{slow, updateIssue(plugin)}, Namespaces: register(issues())})
		first := r.Exec(ctx, `text("before"); const l = await Issues.list({state: "open"}); text("after");
const u = await namespaces.Issues.update(l[0].number, {done: true}); return {n: l.length, u, repo: Issues.repository.repo};`)
		Expect(first).To(BeWaiting(), "a namespace call pending at timeoutMs must suspend the cell with waiting")
		Expect(first.Reason).To(Equal(result.ReasonPendingTools), "the cell waits for its pending namespace call")
		open()
		final, _ := r.Follow(ctx, first)
		Expect(final).To(CompleteWith(map[string]any{"n": 1, "u": map[string]any{"updated": map[string]any{"number": 1, "patch": map[string]any{"done": true}}}, "repo": "demo"}),
			"wait must resume the cell where it stopped, with the namespace still there to call again")
		Expect(r.Tools.CallsOf(listTool)).To(HaveLen(1), "resuming must not repeat the namespace call")
	})
})

func compact(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

var _ = Describe("namespaces", "namespace bridge draining", func() {
	It("CM-EXEC-15", "namespace calls that are ready are drained inside the same exec call: a compact cell needs no wait", func(ctx SpecContext) {
		RequireFeature("namespaces", "CM-EXEC-15 is observable only through a bridge: namespace (here) or MCP calls")
		r := NamespaceRun(ctx, RunOptions{CodeMode: true, Tools: githubTools(plugin), Namespaces: register(issues())})
		res := r.Exec(ctx, `const open = await Issues.list({state: "open"}); const closed = await namespaces.Issues.list({state: "closed"});
const u = await Issues.update(open[0].number, {state: closed[0].state}); return u.updated;`)
		Expect(res).To(CompleteWith(map[string]any{"number": 1, "patch": map[string]any{"state": "closed"}}),
			"three quick namespace calls in a row must all settle inside the one exec call (no waiting result, no model round trip)")
		Expect(r.Tools.Calls()).To(HaveLen(3), "the cell makes three namespace calls")
	})
})
