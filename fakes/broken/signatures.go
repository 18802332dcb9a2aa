package broken

import "github.com/codemode-conformance/codemode/reference/codemode"

// The generation-2 catalog surface variants (CM-TS-06): a tool without an
// output schema typed any, a guess the model would build on, instead of
// unknown; declarations served for denied tools.
func init() {
	Variants = append(Variants,
		Variant{Name: "outputs-typed-any", Breaks: "CM-TS-06", Profile: "v2",
			Defect: "a tool without an output schema has its output typed any instead of unknown, in the quick index, on its catalog handle and in its declaration",
			Serve:  withDefects(codemode.Defects{AnyOutputs: true})},
		Variant{Name: "denied-declarations", Breaks: "CM-TS-06", Profile: "v2",
			Defect: "API.read serves the declaration of a tool the policy denies (tools/<name>.d.ts of every tool of run.prepare)",
			Serve:  withDefects(codemode.Defects{DeclareDenied: true})},
	)
}
