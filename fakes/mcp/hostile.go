package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HostileTools are the tool names of the hostile server, in registration
// order: a hyphen, a leading digit, prototype members, names of the
// namespace's own members (resources, prompts), a dotted name and two names
// that camelCase to the same identifier (do_thing, do-thing). Each tool
// returns {content:[{type:"text", text:<name>}], structuredContent:{tool:<name>, input}}.
var HostileTools = []string{
	"get-weather", "2fa-code", "constructor", "__proto__", "toString",
	"hasOwnProperty", "resources", "prompts", "files.read", "do_thing", "do-thing",
}

func addHostile(s *Server) {
	for _, name := range HostileTools {
		s.add(name, "Hostile name "+name+".", `{
  "type": "object",
  "properties": {"city": {"type": "string", "description": "Any text"}}
}`, func(_ context.Context, a map[string]any) (*sdk.CallToolResult, error) {
			r := text(name)
			r.StructuredContent = map[string]any{"tool": name, "input": a}
			return r, nil
		})
	}
}
