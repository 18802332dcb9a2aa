package namespaces

import (
	"context"
	"encoding/json"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/gomega"
)

var _ = Describe("namespaces", "namespace registration and visibility", func() {
	It("CM-NS-01", "a registered namespace is reachable as the global Issues and as namespaces.Issues, and both call the plugin's tool", func(ctx SpecContext) {
		r := NamespaceRun(ctx, RunOptions{CodeMode: true, Tools: githubTools(plugin), Namespaces: register(issues())})
		res, _ := r.RunToCompletion(ctx, `const open = await Issues.list({ state: "open" });
const alsoOpen = await namespaces.Issues.list({ state: "open" });
return { count: open.length, alsoCount: alsoOpen.length, state: alsoOpen[0].state, repo: namespaces.Issues.repository.repo, same: Issues.repository.owner };`)
		Expect(res).To(CompleteWith(map[string]any{"count": 2, "alsoCount": 2, "state": "open", "repo": "demo", "same": "octo"}),
			"the source's example cell must run against namespace %q, registered for plugin %q with both tools present", nsID, plugin)
		calls := r.Tools.CallsOf(listTool)
		Expect(calls).To(HaveLen(2), "Issues.list and namespaces.Issues.list must each run %s once", listTool)
		for _, c := range calls {
			Expect(c.Owner).To(Equal(plugin), "a namespace call must run the tool of the namespace's own plugin: %+v", c)
		}
	})

	It("CM-NS-02", "same-named tools of another plugin, a missing required tool or a denied one hide the namespace", func(ctx SpecContext) {
		cases := []struct {
			name   string
			tools  []tools.Tool
			policy *protocol.Policy
		}{
			{"both tools owned by plugin evil", githubTools("evil"), nil},
			{"update owned by plugin evil", []tools.Tool{listIssues(plugin), updateIssue("evil"), tools.Echo()}, nil},
			{"update missing", []tools.Tool{listIssues(plugin), tools.Echo()}, nil},
			{"update denied by policy", githubTools(plugin), &protocol.Policy{Deny: []string{updateTool}}},
		}
		for _, c := range cases {
			r := NamespaceRun(ctx, RunOptions{CodeMode: true, Tools: c.tools, Policy: c.policy, Namespaces: register(issues())})
			res, _ := r.RunToCompletion(ctx, probe+"\n")
			Expect(res).To(CompleteWith(map[string]any{"global": "undefined", "inMap": false}),
				"with %s, namespace %q of plugin %q must not be visible (requiredToolNames %v must all be in the catalog with sourceName %q)", c.name, nsID, plugin, []string{listTool, updateTool}, plugin)
			try, _ := r.RunToCompletion(ctx, `try { await globalThis["Issues"].list({}); } catch (e) {} return "done";`)
			Expect(try).To(CompleteWith("done"), "with %s, a cell reaching for the hidden namespace runs on", c.name)
			Expect(r.Tools.Calls()).To(BeEmpty(), "with %s, no tool may run through the hidden namespace", c.name)
		}
		// The same registration with both tools owned by the plugin is visible:
		// the cases above are hidden because of what they change.
		ok := NamespaceRun(ctx, RunOptions{CodeMode: true, Tools: githubTools(plugin), Namespaces: register(issues())})
		res, _ := ok.RunToCompletion(ctx, probe+"\n")
		Expect(res).To(CompleteWith(map[string]any{"global": "object", "inMap": true}),
			"with both required tools owned by plugin %q, namespace %q must be visible as Issues and namespaces.Issues", plugin, nsID)
	})

	It("CM-ACT-07", "the namespace's description and prompt are in the exec description only when the namespace is visible", func(ctx SpecContext) {
		reg := issues()
		visible := NamespaceRun(ctx, RunOptions{CodeMode: true, Tools: githubTools(plugin), Namespaces: register(reg)})
		desc := execDescription(visible)
		Expect(desc).To(ContainSubstring(reg.Description), "the exec description of a run where namespace %q is visible must carry its description", nsID)
		Expect(desc).To(ContainSubstring(reg.Prompt), "the exec description of a run where namespace %q is visible must carry its prompt", nsID)
		for name, ts := range Sorted(map[string][]tools.Tool{
			"tools of another plugin": githubTools("evil"),
			"a required tool missing": {listIssues(plugin), tools.Echo()},
		}) {
			hidden := NamespaceRun(ctx, RunOptions{CodeMode: true, Tools: ts, Namespaces: register(reg)})
			Expect(hidden.Prepared.CodeModeActive).To(BeTrue(), "code mode must be active with %s", name)
			d := execDescription(hidden)
			Expect(d).NotTo(ContainSubstring(reg.Description), "with %s the namespace is hidden: its description must not be in the exec description", name)
			Expect(d).NotTo(ContainSubstring(reg.Prompt), "with %s the namespace is hidden: its prompt must not be in the exec description", name)
		}
		// Without any registration the description is the plain one: the
		// namespace adds text, it does not replace it.
		plain := NamespaceRun(ctx, RunOptions{CodeMode: true, Tools: githubTools(plugin)})
		Expect(cmp.Diff(execDescription(plain), desc)).NotTo(BeEmpty(), "a visible namespace must change the exec description")
	})

	It("CM-NS-09", "clearing a plugin removes its namespaces from later runs; no stale global survives; other plugins' namespaces stay", func(ctx SpecContext) {
		acme := Registration("acme", "acme-ping", "Acme", []string{"acme_ping"}, map[string]any{"ping": NamespaceTool("acme_ping")}, nil)
		ts := append(githubTools(plugin), tools.Plugin("acme", "acme_ping", "Ping.", nil, func(context.Context, json.RawMessage) (any, error) { return "pong", nil }))
		both := `return {issues: typeof Issues, acme: typeof Acme, keys: Object.keys(namespaces).sort()};`
		first := NamespaceRun(ctx, RunOptions{CodeMode: true, Tools: ts, Namespaces: register(issues(), acme)})
		res, _ := first.RunToCompletion(ctx, both)
		Expect(res).To(CompleteWith(map[string]any{"issues": "object", "acme": "object", "keys": []any{"Acme", "Issues"}}), "both registered namespaces are visible before the clear")

		cleared := NewRun(ctx, RunOptions{CodeMode: true, Tools: ts, Namespaces: &protocol.NamespaceChanges{ClearPlugins: []string{plugin}}})
		res, _ = cleared.RunToCompletion(ctx, both)
		Expect(res).To(CompleteWith(map[string]any{"issues": "undefined", "acme": "object", "keys": []any{"Acme"}}),
			"after clearCodeModeNamespacesForPlugin(%q) namespace %q must be gone although its tools are still in the catalog, and plugin acme's must stay", plugin, nsID)
		Expect(execDescription(cleared)).NotTo(ContainSubstring(nsPrompt), "a cleared namespace's prompt must not be in the exec description")

		later := NewRun(ctx, RunOptions{CodeMode: true, Tools: ts})
		res, _ = later.RunToCompletion(ctx, both)
		Expect(res).To(CompleteWith(map[string]any{"issues": "undefined", "acme": "object", "keys": []any{"Acme"}}),
			"a later run (no namespace changes) must still lack the cleared namespace and keep the registry's other one")
		Expect(later.Tools.Calls()).To(BeEmpty(), "no tool runs in these probes")
	})
})
