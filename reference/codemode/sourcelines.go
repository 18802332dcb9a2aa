package codemode

import "github.com/go-sourcemap/sourcemap"

// cellHeaderLines is how many lines the engine's AsyncFunction constructor
// puts before the cell body ("(async function anonymous(\n) {\n"), which the
// prelude evaluates as a function body (prelude.js start).
const cellHeaderLines = 2

// tsLines leads a position of a typescript cell's JavaScript (the body
// transformTypeScript returned) back to the TypeScript source through
// esbuild's source map. sm is nil when esbuild's map could not be read.
type tsLines struct{ sm *sourcemap.Consumer }

// sourceLine is the 1-based line of the cell's source for a position the
// prelude reported (line and column 1-based, in the evaluated function), or
// 0 when unknown: the header, a position the map does not cover, or values a
// guest forged (CM-TS-05).
func (c *cell) sourceLine(line, column int) int {
	body := line - cellHeaderLines
	if line <= cellHeaderLines || column < 1 || body > 1<<24 {
		return 0
	}
	if c.ts == nil {
		return body
	}
	if c.ts.sm == nil {
		return 0
	}
	// esbuild's input and output both begin with the wrapper's line
	// "async function __cell() {", so body line n is line n+1 of each.
	_, _, src, _, ok := c.ts.sm.Source(body+1, column-1)
	if !ok || src < 2 {
		return 0
	}
	return src - 1
}
