package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The TypeScript-style signatures of generation 2's catalog surface
// (feature javascript-only, CM-TS-06, spec/protocol.md §12.13): the same
// JSON Schema → TypeScript rendering as the MCP declarations (§12.10), for
// every catalog tool, not only MCP ones.

// InputSignature is a tool's input type on one line, from its parameters
// schema: `{ a: number; b?: string }`. A missing or malformed schema is an
// object with no declared properties (`Record<string, unknown>`).
func InputSignature(schema json.RawMessage) string {
	return tsType(parseSchema(schema), inline, 0)
}

// OutputSignature is a tool's output type on one line, from its declared
// output schema; `unknown` when it declares none or the schema is not a
// JSON object (001: an output without a declared schema is unknown).
func OutputSignature(schema json.RawMessage) string {
	o := outputSchema(schema)
	if o == nil {
		return "unknown"
	}
	return tsType(o, inline, 0)
}

func outputSchema(raw json.RawMessage) *object {
	if len(raw) == 0 {
		return nil
	}
	v, err := decodeSchema(raw)
	if err != nil {
		return nil
	}
	o, _ := v.(*object)
	return o
}

// ToolDeclaration is the declaration file of one catalog tool
// (tools/<callable>.d.ts): a comment naming the tool, its description and
// one @param line per top-level input property as JSDoc, then
// `declare function <callable>(input: <input>): Promise<<output>>;` with
// the input optional when nothing is required and the output unknown
// without an output schema.
func ToolDeclaration(callable, toolName, catalogID, description string, input, output json.RawMessage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// Tool %s, catalog id %s. Generated from its declared schemas; an output without a schema is unknown.\n",
		jsonString(toolName), jsonString(catalogID))
	schema := parseSchema(input)
	doc := docLines(description) // declarations.go: one safe line each
	props, required := objectProps(schema)
	for _, p := range props {
		doc = append(doc, paramDoc(p))
	}
	writeDoc(&b, "", doc) // declarations.go
	opt := "?"
	if len(required) > 0 {
		opt = ""
	}
	out := "unknown"
	if o := outputSchema(output); o != nil {
		out = tsType(o, 0, 0)
	}
	fmt.Fprintf(&b, "declare function %s(input%s: %s): Promise<%s>;\n", callable, opt, tsType(schema, 0, 0), out)
	return b.String()
}
