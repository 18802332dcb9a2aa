package broken

import "github.com/codemode-conformance/codemode/spec/protocol"

// Broken TypeScript line numbers (CM-TS-05): the runtime adds a line of its
// own before a typescript cell and then transforms and runs it, so every line
// it reports is one too far from the model's source.
func init() {
	Variants = append(Variants,
		Variant{Name: "typescript-lines-shifted", Breaks: "CM-TS-05",
			Defect: "a typescript cell is transformed with a \"use strict\" prologue line put before it, so the line of a runtime error is one past the TypeScript source line",
			Serve: proxied(func(msg map[string]any) (bool, bool) {
				if msg["method"] != protocol.MethodToolExec {
					return false, false
				}
				p, _ := msg["params"].(map[string]any)
				if in, _ := p["input"].(map[string]any); in == nil || in["language"] != "typescript" {
					return false, false
				}
				return editCode(msg, func(code string) string { return "\"use strict\";\n" + code }), false
			})})
}
