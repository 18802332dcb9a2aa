package mcp

import (
	"encoding/json"
	"sort"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Server is one visible MCP server as the guest sees it.
type Server struct {
	// Name is the server name from run.prepare (catalog owner).
	Name string `json:"server"`
	// Ident is its identifier: MCP.<Ident>.
	Ident string `json:"name"`
	// Path is its declaration file, mcp/<Ident>.d.ts.
	Path  string `json:"path"`
	Tools []Tool `json:"tools"`
}

// Tool is one visible MCP tool as the guest sees it.
type Tool struct {
	// Name is the MCP tool name.
	Name string `json:"mcpName"`
	// Ident is its identifier: MCP.<server>.<Ident>.
	Ident string `json:"name"`
	// ID is its exact catalog id, mcp:<server>:<tool> (possibly with ~N).
	ID           string          `json:"id"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// Entry is a catalog entry the plan is built from.
type Entry struct {
	ID   string
	Spec protocol.ToolSpec
	// OutputSchema is the tool's MCP output schema, if any.
	OutputSchema json.RawMessage
}

// Plan names the visible servers and tools of a run (spec/protocol.md
// §12.10): entries are the run's catalog entries with source mcp in catalog
// order; servers are named in bytewise order of their names, tools in
// catalog order, each with Assign. A server with no entry is not visible.
func Plan(entries []Entry) []Server {
	byServer := map[string][]Entry{}
	var names []string
	for _, e := range entries {
		if e.Spec.Source != protocol.SourceMCP {
			continue
		}
		if _, ok := byServer[e.Spec.Owner]; !ok {
			names = append(names, e.Spec.Owner)
		}
		byServer[e.Spec.Owner] = append(byServer[e.Spec.Owner], e)
	}
	sort.Strings(names)
	idents := Assign(names, "server", ServerMembers)
	out := make([]Server, 0, len(names))
	for i, n := range names {
		es := byServer[n]
		toolNames := make([]string, len(es))
		for j, e := range es {
			toolNames[j] = e.Spec.Name
		}
		tidents := Assign(toolNames, "tool", ToolMembers)
		s := Server{Name: n, Ident: idents[i], Path: "mcp/" + idents[i] + ".d.ts"}
		for j, e := range es {
			s.Tools = append(s.Tools, Tool{Name: e.Spec.Name, Ident: tidents[j], ID: e.ID,
				Description: e.Spec.Description, InputSchema: e.Spec.Parameters, OutputSchema: e.OutputSchema})
		}
		out = append(out, s)
	}
	return out
}
