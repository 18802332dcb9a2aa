package mcp

import (
	"strconv"
	"strings"
	"unicode"
)

// jsReserved are the words a TypeScript declaration cannot use as a function
// or namespace name (ECMAScript reserved words, strict-mode and TypeScript
// contextual keywords that are errors in declarations).
var jsReserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`break case catch class const continue debugger default delete do else enum
		export extends false finally for function if import in instanceof new null return super switch this throw
		true try typeof var void while with yield let static implements interface package private protected public
		await arguments eval undefined NaN Infinity`) {
		jsReserved[w] = true
	}
}

// ToolMembers are the member names of an MCP.<server> object that no tool
// may take: the API header, the resource and prompt namespaces, and "then",
// which would make the object a thenable (CM-MCP-07).
var ToolMembers = []string{"$api", "resources", "prompts", "then"}

// ServerMembers are the names no server may take: "then" (MCP would become a
// thenable) and "index" (mcp/index.d.ts is the index file).
var ServerMembers = []string{"then", "index"}

// Identifier turns an MCP server or tool name into a safe JavaScript
// identifier and path segment (spec/protocol.md §12.10, CM-MCP-07, CM-MCP-09):
// the name is split on every character outside [A-Za-z0-9]; the first part
// is kept, each later part gets an upper-case first letter (create_issue →
// createIssue, acme.tools-2 → acmeTools2); an empty result becomes fallback;
// a leading digit gets a "_" prefix (2fa-code → _2faCode); a reserved word
// gets a "_" suffix (delete → delete_).
func Identifier(name, fallback string) string {
	parts := strings.FieldsFunc(name, func(r rune) bool {
		return r > unicode.MaxASCII || !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			p = strings.ToUpper(p[:1]) + p[1:]
		}
		b.WriteString(p)
	}
	s := b.String()
	switch {
	case s == "":
		s = fallback
	case s[0] >= '0' && s[0] <= '9':
		s = "_" + s
	}
	if jsReserved[s] {
		s += "_"
	}
	return s
}

// Assign names each of names (in the given order) with Identifier; a result
// that is in taken or was given to an earlier name gets "_2", "_3", … (the
// first free one). So do-thing and do_thing, in that order, become doThing
// and doThing_2. The result is index-aligned with names.
func Assign(names []string, fallback string, taken []string) []string {
	used := map[string]bool{}
	for _, t := range taken {
		used[t] = true
	}
	out := make([]string, len(names))
	for i, n := range names {
		base := Identifier(n, fallback)
		id := base
		for k := 2; used[id]; k++ {
			id = base + "_" + strconv.Itoa(k)
		}
		used[id] = true
		out[i] = id
	}
	return out
}
