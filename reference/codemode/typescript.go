package codemode

import (
	"fmt"

	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/evanw/esbuild/pkg/api"
	"github.com/go-sourcemap/sourcemap"
)

// transformTypeScript strips types with esbuild (no type checking, no module
// resolution). Only TypeScript cells reach this (CM-TS-01..03). The cell body
// is wrapped in an async function so top-level return and await parse, and
// unwrapped afterwards. esbuild reprints the code, so lines move (type-only
// lines vanish, statements are split): the returned map leads a line of the
// JavaScript back to the TypeScript source (CM-TS-05, sourcelines.go).
func transformTypeScript(code string) (string, *tsLines, *result.Result) {
	const head = "async function __cell() {\n"
	res := api.Transform(head+code+"\n}", api.TransformOptions{Loader: api.LoaderTS, Target: api.ES2022, Format: api.FormatDefault, Sourcemap: api.SourceMapExternal})
	if len(res.Errors) > 0 {
		e := res.Errors[0]
		line := 0
		if e.Location != nil {
			line = e.Location.Line - 1
		}
		r := result.Failed(result.CodeTypeScriptTransformFailed, fmt.Sprintf("TypeScript transform failed at line %d: %s", line, e.Text))
		return "", nil, &r
	}
	out := string(res.Code)
	// esbuild prints `async function __cell() {\n<body>\n}\n`: keep the body.
	start := len("async function __cell() {\n")
	end := len(out) - len("}\n")
	if len(out) < start+len("}\n") || out[:start] != head || out[end:] != "}\n" {
		r := result.Failed(result.CodeTypeScriptTransformFailed, "TypeScript transform produced unexpected output")
		return "", nil, &r
	}
	sm, err := sourcemap.Parse("", res.Map)
	if err != nil { // no line mapping is no reason to refuse the cell
		sm = nil
	}
	return out[start:end], &tsLines{sm: sm}, nil
}
