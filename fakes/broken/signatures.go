package broken

import "github.com/codemode-conformance/codemode/reference/codemode"

// The generation-2 catalog surface variant (CM-TS-06): a tool without an
// output schema typed any, a guess the model would build on, instead of
// unknown.
func init() {
	Variants = append(Variants,
		Variant{Name: "outputs-typed-any", Breaks: "CM-TS-06", Profile: "v2",
			Defect: "a tool without an output schema has its output typed any instead of unknown, in the quick index, on its catalog handle and in its declaration",
			Serve:  withDefects(codemode.Defects{AnyOutputs: true})},
	)
}
