package prelude

import (
	_ "embed"
	"encoding/json"
)

// MCPSource is mcp.js, the MCP extension of the prelude (feature mcp).
//
//go:embed mcp.js
var MCPSource string

// Script is one file evaluated in every template VM.
type Script struct {
	Filename string
	Source   string
}

// Scripts are the prelude and its extensions, in evaluation order. An
// extension registers with __codemode.extend before boot; its filename is
// listed in prelude.js PRELUDE_FILES so stack traces leave it out.
var Scripts = []Script{
	{Filename: Filename, Source: Source},
	{Filename: "codemode-prelude-mcp.js", Source: MCPSource},
	{Filename: "codemode-prelude-timers.js", Source: TimersSource},
	{Filename: "codemode-prelude-catalog.js", Source: CatalogSource},
}

// MCPBoot is the MCP table a cell boots with (Boot.MCP): the visible
// servers and the virtual files (spec/protocol.md §12.10).
type MCPBoot struct {
	Servers []MCPServer `json:"servers"`
	Files   []MCPFile   `json:"files"`
}

// MCPServer is one visible server: Name is its identifier (MCP.<Name>),
// Server its run.prepare name, Path its declaration file.
type MCPServer struct {
	Name   string    `json:"name"`
	Server string    `json:"server"`
	Path   string    `json:"path"`
	Tools  []MCPTool `json:"tools"`
}

// MCPTool is one visible tool: Name is its identifier, MCPName the MCP
// tool name, ID its exact catalog id, Header the declaration $api(Name)
// returns.
type MCPTool struct {
	Name         string          `json:"name"`
	MCPName      string          `json:"mcpName"`
	ID           string          `json:"id"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Header       string          `json:"header"`
}

// MCPFile is one virtual file of API.list/API.read; Bytes is the UTF-8
// length of Text.
type MCPFile struct {
	Path   string `json:"path"`
	Server string `json:"server,omitempty"`
	Bytes  int    `json:"bytes"`
	Text   string `json:"text"`
}
