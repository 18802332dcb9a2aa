package codemode

import (
	"fmt"

	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/evanw/esbuild/pkg/api"
)

// transformTypeScript strips types with esbuild (no type checking, no module
// resolution). Only TypeScript cells reach this (CM-TS-01..03). The cell body
// is wrapped in an async function so top-level return and await parse, and
// unwrapped afterwards.
func transformTypeScript(code string) (string, *result.Result) {
	const head = "async function __cell() {\n"
	res := api.Transform(head+code+"\n}", api.TransformOptions{Loader: api.LoaderTS, Target: api.ES2022, Format: api.FormatDefault})
	if len(res.Errors) > 0 {
		e := res.Errors[0]
		line := 0
		if e.Location != nil {
			line = e.Location.Line - 1
		}
		r := result.Failed(result.CodeTypeScriptTransformFailed, fmt.Sprintf("TypeScript transform failed at line %d: %s", line, e.Text))
		return "", &r
	}
	out := string(res.Code)
	// esbuild prints `async function __cell() {\n<body>\n}\n`: keep the body.
	start := len("async function __cell() {\n")
	end := len(out) - len("}\n")
	if len(out) < start+len("}\n") || out[:start] != head || out[end:] != "}\n" {
		r := result.Failed(result.CodeTypeScriptTransformFailed, "TypeScript transform produced unexpected output")
		return "", &r
	}
	return out[start:end], nil
}
