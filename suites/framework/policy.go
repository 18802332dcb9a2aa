package framework

import (
	"fmt"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// controlTools are never catalogued, so guest code can never call them
// (protocol.md §5.4, CM-CAT-03); a core `exec` from source openclaw is the
// shell exec tool and is catalogued (CM-CAT-04).
var controlTools = map[string]bool{"exec": true, "wait": true, "tool_search_code": true, "tool_search": true, "tool_describe": true, "tool_call": true}

// callable decides whether guest code of the run prepared with p may reach
// the tool (source, owner, name) through tools.call, judged by the harness
// from run.prepare alone. It returns "" when it may, else why not and the
// requirements a tool.invoke for it violates:
//   - not declared in run.prepare: CM-ACT-05 (the catalog is run-scoped);
//   - raw: true or disableTools: true (no effective tools): CM-ACT-03;
//   - not matched by a present allowlist, or matched by a deny entry
//     (protocol.md §5.3: an entry matches the name, the owner, "source:owner"
//     or "source:owner:name"; deny wins; "allow": [] allows nothing):
//     CM-GUEST-05, CM-ACT-04;
//   - a control tool: CM-CAT-03;
//   - source mcp (catalogued, never callable from the guest): CM-CAT-05.
func callable(p protocol.PrepareParams, source, owner, name string) (why string, reqs []string) {
	declared := false
	for _, t := range p.Tools {
		if t.Source == source && t.Owner == owner && t.Name == name {
			declared = true
			break
		}
	}
	t := protocol.ToolSpec{Source: source, Owner: owner, Name: name}
	var allowed, denied bool
	var deniedBy string
	if p.Policy != nil {
		_, allowed = policyMatch(p.Policy.Allow, t)
		deniedBy, denied = policyMatch(p.Policy.Deny, t)
	}
	switch {
	case !declared:
		return fmt.Sprintf("no tool %s:%s:%s was declared in this run's run.prepare", source, owner, name), []string{"CM-ACT-05"}
	case p.Raw:
		return "the run is a raw model call (raw: true), which has no tools", []string{"CM-ACT-03"}
	case p.DisableTools:
		return "the run has disableTools: true, so it has no tools", []string{"CM-ACT-03"}
	case p.Policy != nil && p.Policy.Allow != nil && !allowed:
		if len(p.Policy.Allow) == 0 {
			return `the run's policy has "allow": [], which allows no tool`, []string{"CM-GUEST-05", "CM-ACT-03", "CM-ACT-04"}
		}
		return fmt.Sprintf("no entry of the run's allowlist %q matches it", p.Policy.Allow), []string{"CM-GUEST-05", "CM-ACT-04"}
	case denied:
		return fmt.Sprintf("the run's policy denies it (deny entry %q)", deniedBy), []string{"CM-GUEST-05", "CM-ACT-04"}
	case controlTools[name] && !(name == "exec" && source == protocol.SourceOpenClaw && owner == "core"):
		return fmt.Sprintf("%q is a code mode control tool, which the catalog omits", name), []string{"CM-CAT-03"}
	case source == protocol.SourceMCP:
		return "tools of source mcp are catalogued but never callable from guest code", []string{"CM-CAT-05"}
	}
	return "", nil
}

// policyMatch returns the first entry of list that matches t (protocol.md
// §5.3).
func policyMatch(list []string, t protocol.ToolSpec) (string, bool) {
	for _, x := range list {
		if x == t.Name || x == t.Owner || x == t.Source+":"+t.Owner || x == t.Source+":"+t.Owner+":"+t.Name {
			return x, true
		}
	}
	return "", false
}
