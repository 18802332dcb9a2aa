// Package namespaces holds the specs of plugin namespaces (feature
// namespaces: CM-NS-01..11, CM-ACT-07), one per item of the source's
// namespace test checklist (000 [Checklist dei test]). Registrations travel
// in run.prepare as data (spec/protocol.md §5.5).
package namespaces

import (
	"context"
	"encoding/json"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
)

// The plugin of the source's example, its tools and its namespace.
const (
	plugin     = "github"
	listTool   = "github_list_issues"
	updateTool = "github_update_issue"
	nsID       = "github-issues"
	global     = "Issues"
	nsPrompt   = "Use Issues.list(params) and Issues.update(number, patch)."
)

// listIssues returns two issues in the state asked for: [{number, state}].
func listIssues(owner string) tools.Tool {
	return tools.Plugin(owner, listTool, "List the repository's issues.", nil,
		func(ctx context.Context, in json.RawMessage) (any, error) {
			var p struct {
				State string `json:"state"`
			}
			_ = json.Unmarshal(in, &p)
			if p.State == "" {
				p.State = "any"
			}
			return []map[string]any{{"number": 1, "state": p.State}, {"number": 2, "state": p.State}}, nil
		})
}

// updateIssue returns {updated: <its input>}.
func updateIssue(owner string) tools.Tool {
	return tools.Plugin(owner, updateTool, "Update one issue.", nil,
		func(ctx context.Context, in json.RawMessage) (any, error) {
			return map[string]any{"updated": json.RawMessage(in)}, nil
		})
}

// githubTools are the namespace's backing tools owned by owner, plus echo.
func githubTools(owner string) []tools.Tool {
	return []tools.Tool{listIssues(owner), updateIssue(owner), tools.Echo()}
}

// issuesScope is the source's example scope: repository (ctx.config), list
// (default mapper) and update (([number, patch]) => ({number, patch})).
func issuesScope() map[string]any {
	return map[string]any{
		"repository": ScopeContext(protocol.ContextConfig),
		"list":       NamespaceTool(listTool),
		"update":     NamespaceToolPositional(updateTool, "number", "patch"),
	}
}

// issues is the source's example registration.
func issues() protocol.NamespaceRegistration {
	r := Registration(plugin, nsID, global, []string{listTool, updateTool}, issuesScope(), nil)
	r.Description = "GitHub issue helpers for the current repository."
	r.Prompt = nsPrompt
	r.Config = json.RawMessage(`{"owner":"octo","repo":"demo"}`)
	return r
}

// register is the run.prepare namespaces member registering regs.
func register(regs ...protocol.NamespaceRegistration) *protocol.NamespaceChanges {
	return &protocol.NamespaceChanges{Register: regs}
}

// execDescription is the model-visible exec tool's description ("" when the
// run has no exec).
func execDescription(r *Run) string {
	for _, t := range r.Prepared.Tools {
		if t.Name == "exec" {
			return t.Description
		}
	}
	return ""
}

// probe is guest code that reports how the namespace global looks.
const probe = `return {global: typeof Issues, inMap: Object.keys(namespaces).includes("Issues")};`
