package broken

import "github.com/codemode-conformance/codemode/spec/protocol"

// Broken nested calls around what a direct call of the run has (features
// sandbox and streaming, spec/protocol.md §3 run.prepare sandbox, §4).
func init() {
	Variants = append(Variants,
		Variant{Name: "nested-sandbox-dropped", Breaks: "CM-NEST-10",
			Defect: "nested calls lose the run's sandbox policy (a direct call keeps it), so a sandboxed agent's nested tool runs unsandboxed",
			Serve: outbound(func(msg map[string]any) (edited, drop bool) {
				p, _ := msg["params"].(map[string]any)
				if msg["method"] != protocol.MethodToolInvoke || p == nil || p["parentToolCallId"] == "" {
					return false, false
				}
				c, _ := p["context"].(map[string]any)
				if _, ok := c["sandbox"]; !ok {
					return false, false
				}
				delete(c, "sandbox")
				return true, false
			})},
	)
}
