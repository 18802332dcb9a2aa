package mcp

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// File is one virtual file of the API table (CM-MCP-02, CM-MCP-03).
type File struct {
	Path string `json:"path"`
	// Server is the MCP server name of a server file; empty for the index.
	Server string `json:"server,omitempty"`
	Text   string `json:"text"`
}

// IndexPath is the index of the virtual declaration files.
const IndexPath = "mcp/index.d.ts"

// commonTypes are the types every server file declares (CM-MCP-03).
const commonTypes = `type McpToolResult = {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  [key: string]: unknown;
};

type McpApiHeader = {
  /** The MCP server name. */
  server: string;
  /** The declaration file of the server. */
  path: string;
  /** TypeScript-style declarations of the server, or of the one tool asked for. */
  text: string;
  tools: {
    name: string;
    mcpName: string;
    id: string;
    description: string;
    inputSchema?: unknown;
    outputSchema?: unknown;
  }[];
};

type McpResourceResult = { contents: unknown[]; [key: string]: unknown };

type McpPromptResult = { description?: string; messages: unknown[]; [key: string]: unknown };
`

// Render returns the virtual files of a run: mcp/index.d.ts and one
// mcp/<server>.d.ts per visible server, in path order after the index. No
// visible server: no files.
func Render(servers []Server) []File {
	if len(servers) == 0 {
		return nil
	}
	var idx strings.Builder
	idx.WriteString("// MCP servers of this code mode run. Read mcp/<server>.d.ts for a server's tools, or call\n")
	idx.WriteString("// MCP.<server>.$api(). Call a tool as MCP.<server>.<tool>({ ...input }).\n")
	files := []File{{Path: IndexPath}}
	sorted := append([]Server(nil), servers...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	for _, s := range sorted {
		fmt.Fprintf(&idx, "/// <reference path=%q />\n", strings.TrimPrefix(s.Path, "mcp/"))
		files = append(files, File{Path: s.Path, Server: s.Name, Text: ServerText(s)})
	}
	idx.WriteString("\ndeclare namespace MCP {\n")
	for _, s := range sorted {
		n := 0
		for range s.Tools {
			n++
		}
		fmt.Fprintf(&idx, "  /** MCP server %s: %d tool%s, declared in %s. */\n", jsdocText(jsonString(s.Name)), n, plural(n), s.Path)
		fmt.Fprintf(&idx, "  namespace %s {}\n", s.Ident)
	}
	idx.WriteString("}\n")
	files[0].Text = idx.String()
	return files
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// ServerText is the declaration file of one server (CM-MCP-03): the common
// types, then declare namespace MCP.<server> with $api, one function per
// tool, and the resources and prompts namespaces.
func ServerText(s Server) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// MCP server %s, catalog ids %s. Virtual and read-only.\n", jsonString(s.Name), jsonString("mcp:"+s.Name+":<tool>"))
	b.WriteString(commonTypes)
	b.WriteString("\n")
	b.WriteString(namespaceText(s, s.Tools, true))
	return b.String()
}

// ToolHeader is the header $api(toolName) returns: the namespace with the
// one tool (CM-MCP-05).
func ToolHeader(s Server, t Tool) string {
	return namespaceText(s, []Tool{t}, false)
}

func namespaceText(s Server, tools []Tool, full bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "declare namespace MCP.%s {\n", s.Ident)
	if full {
		b.WriteString("  /** Return this TypeScript-style API header. */\n")
		b.WriteString("  function $api(toolName?: string, options?: { schema?: boolean }): Promise<McpApiHeader>;\n")
	}
	for i, t := range tools {
		if full || i > 0 {
			b.WriteString("\n")
		}
		writeTool(&b, t)
	}
	if full {
		b.WriteString("\n  namespace resources {\n")
		b.WriteString("    /** Read a resource of this server by URI (resources/read). */\n")
		b.WriteString("    function read(input: { uri: string }): Promise<McpResourceResult>;\n  }\n")
		b.WriteString("\n  namespace prompts {\n")
		b.WriteString("    /** Get a prompt of this server (prompts/get). */\n")
		b.WriteString("    function get(input: { name: string; arguments?: Record<string, string> }): Promise<McpPromptResult>;\n  }\n")
	}
	b.WriteString("}\n")
	return b.String()
}

func writeTool(b *strings.Builder, t Tool) {
	schema := parseSchema(t.InputSchema)
	doc := docLines(t.Description)
	if t.Ident != t.Name {
		doc = append(doc, jsdocText("MCP tool "+jsonString(t.Name)+"."))
	}
	props, required := objectProps(schema)
	for _, p := range props {
		doc = append(doc, paramDoc(p))
	}
	writeDoc(b, "  ", doc)
	opt := "?"
	if len(required) > 0 {
		opt = ""
	}
	fmt.Fprintf(b, "  function %s(input%s: %s): Promise<McpToolResult>;\n", t.Ident, opt, tsType(schema, 1, 0))
}

// describe is a property's @param text: its description, its enum or
// default when the type does not show them.
func describe(s *object) string {
	d := strings.Join(strings.Fields(s.str("description")), " ")
	if v, ok := s.get("default"); ok {
		if d != "" {
			d += " "
		}
		d += "(default: " + compactJSON(plain(v)) + ")"
	}
	return d
}

type prop struct {
	name   string
	schema *object
}

// objectProps lists an object schema's properties and its required names.
// Order: the required properties in the order of "required", then the
// others bytewise by name (JSON key order is not kept by every MCP client;
// "required" is an array, so its order is).
func objectProps(s *object) ([]prop, map[string]bool) {
	req := map[string]bool{}
	ps := s.obj("properties")
	var out []prop
	if r, ok := s.get("required"); ok {
		xs, _ := r.([]any)
		for _, x := range xs {
			n, ok := x.(string)
			if !ok || req[n] {
				continue
			}
			req[n] = true
			if v, ok := ps.get(n); ok {
				m, _ := v.(*object)
				out = append(out, prop{name: n, schema: m})
			}
		}
	}
	if ps == nil {
		return out, req
	}
	for _, n := range ps.keys {
		if !req[n] {
			m, _ := ps.m[n].(*object)
			out = append(out, prop{name: n, schema: m})
		}
	}
	return out, req
}

func parseSchema(raw json.RawMessage) *object {
	if v, err := decodeSchema(raw); err == nil {
		if o, ok := v.(*object); ok {
			return o
		}
	}
	return &object{keys: []string{"type"}, m: map[string]any{"type": "object"}}
}

// maxDepth bounds nested types; deeper schemas are typed unknown.
const maxDepth = 8

// tsType renders a JSON schema as a TypeScript type. indent is the level of
// the type's own line; nested object members go one level deeper. A
// negative indent (inline) renders the type on one line, without member
// comments (signature.go).
func tsType(s *object, indent, depth int) string {
	if s == nil || depth > maxDepth {
		return "unknown"
	}
	if c, ok := s.get("const"); ok {
		return literal(c)
	}
	ev, _ := s.get("enum")
	if e, ok := ev.([]any); ok && len(e) > 0 {
		parts := make([]string, len(e))
		for i, v := range e {
			parts[i] = literal(v)
		}
		return strings.Join(parts, " | ")
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		v, _ := s.get(k)
		if xs, ok := v.([]any); ok && len(xs) > 0 {
			return join(xs, " | ", indent, depth)
		}
	}
	if v, _ := s.get("allOf"); v != nil {
		if xs, ok := v.([]any); ok && len(xs) > 0 {
			return join(xs, " & ", indent, depth)
		}
	}
	tv, _ := s.get("type")
	switch t := tv.(type) {
	case string:
		return typeOf(t, s, indent, depth)
	case []any:
		var parts []string
		for _, x := range t {
			if n, ok := x.(string); ok {
				parts = append(parts, typeOf(n, s, indent, depth))
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, " | ")
		}
	}
	if s.obj("properties") != nil {
		return typeOf("object", s, indent, depth)
	}
	return "unknown"
}

func join(xs []any, op string, indent, depth int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		m, _ := x.(*object)
		parts[i] = wrap(tsType(m, indent, depth+1))
	}
	return strings.Join(parts, op)
}

// wrap parenthesises a type with a top-level union or intersection, for use
// inside another type.
func wrap(t string) string {
	depth := 0
	inString := false
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '(' || c == '{' || c == '[' || c == '<':
			depth++
		case c == ')' || c == '}' || c == ']' || c == '>':
			depth--
		case depth == 0 && (c == '|' || c == '&'):
			return "(" + t + ")"
		}
	}
	return t
}

func typeOf(t string, s *object, indent, depth int) string {
	switch t {
	case "string":
		return "string"
	case "number", "integer":
		return "number"
	case "boolean":
		return "boolean"
	case "null":
		return "null"
	case "array":
		items := s.obj("items")
		if items == nil {
			return "unknown[]"
		}
		return wrap(tsType(items, indent, depth+1)) + "[]"
	case "object":
		return objectType(s, indent, depth)
	}
	return "unknown"
}

// inline is the indent of a type rendered on one line.
const inline = -1

func objectType(s *object, indent, depth int) string {
	props, req := objectProps(s)
	inner := indent + 1
	if indent < 0 {
		inner = inline
	}
	var extra string
	apv, _ := s.get("additionalProperties")
	switch ap := apv.(type) {
	case *object:
		extra = tsType(ap, inner, depth+1)
	case bool:
		if ap && len(props) == 0 {
			extra = "unknown"
		}
	}
	if len(props) == 0 {
		if extra == "" {
			extra = "unknown"
		}
		return "Record<string, " + extra + ">"
	}
	if indent < 0 {
		parts := make([]string, 0, len(props)+1)
		for _, p := range props {
			opt := "?"
			if req[p.name] {
				opt = ""
			}
			parts = append(parts, propertyKey(p.name)+opt+": "+tsType(p.schema, inline, depth+1))
		}
		if extra != "" {
			parts = append(parts, "[key: string]: "+extra)
		}
		return "{ " + strings.Join(parts, "; ") + " }"
	}
	pad := strings.Repeat("  ", indent+1)
	var b strings.Builder
	b.WriteString("{\n")
	for _, p := range props {
		if d := p.schema.str("description"); d != "" && depth > 0 {
			b.WriteString(pad + "/** " + jsdocText(strings.Join(strings.Fields(d), " ")) + " */\n")
		}
		opt := "?"
		if req[p.name] {
			opt = ""
		}
		b.WriteString(pad + propertyKey(p.name) + opt + ": " + tsType(p.schema, indent+1, depth+1) + ";\n")
	}
	if extra != "" {
		b.WriteString(pad + "[key: string]: " + extra + ";\n")
	}
	b.WriteString(strings.Repeat("  ", indent) + "}")
	return b.String()
}

var identRE = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// propertyKey quotes a property name that is not an identifier.
func propertyKey(n string) string {
	if identRE.MatchString(n) {
		return n
	}
	return jsonString(n)
}

func literal(v any) string {
	switch v.(type) {
	case string, float64, bool, nil:
		return compactJSON(v)
	}
	return "unknown"
}

// compactJSON is v's JSON without HTML escaping (<tool> stays readable).
func compactJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func jsonString(s string) string { return compactJSON(s) }

// jsdocText makes s one line of the comment it is in: "*/" cannot end the
// comment, line terminators (\n, \r, U+2028, U+2029) become spaces and the
// other control characters \uXXXX escapes, so a tool's name, schema or
// description adds no line to a declaration file.
func jsdocText(s string) string {
	var b strings.Builder
	for _, r := range strings.ReplaceAll(s, "*/", "*\\/") {
		switch {
		case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		case r != '\t' && unicode.IsControl(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// docLines are the non-empty lines of a description as JSDoc lines: split
// at every line terminator, trimmed, each made safe by jsdocText.
func docLines(text string) []string {
	var out []string
	for _, l := range strings.FieldsFunc(text, func(r rune) bool {
		return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029'
	}) {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, jsdocText(l))
		}
	}
	return out
}

// paramDoc is the JSDoc @param line of input property p: its name, as a
// JSON string when it holds white space, a control character or "*/" (so
// it stays one token on the line), and its description.
func paramDoc(p prop) string {
	name := p.name
	if strings.Contains(name, "*/") || strings.IndexFunc(name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		name = jsonString(name)
	}
	line := "@param " + name
	if d := describe(p.schema); d != "" {
		line += " " + d
	}
	return jsdocText(line)
}

// writeDoc writes doc (lines made safe by docLines, jsdocText or paramDoc) as
// a JSDoc block, each line prefixed by indent; nothing when doc is empty.
func writeDoc(b *strings.Builder, indent string, doc []string) {
	if len(doc) == 0 {
		return
	}
	b.WriteString(indent + "/**\n")
	for _, l := range doc {
		b.WriteString(indent + " * " + l + "\n")
	}
	b.WriteString(indent + " */\n")
}
