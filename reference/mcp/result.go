package mcp

import (
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// GuestResult is the one place that decides what MCP.<server>.<tool>()
// resolves with (CM-MCP-08, CM-MCP-10): the server's CallToolResult as it
// came, an McpToolResult {content, structuredContent?, isError?, ...other
// keys such as _meta}. isError: true is a result, not a rejection. (OpenClaw
// 2026.7.35 wraps agent tool results as {content, details}; the contract's
// .d.ts and CM-MCP-10 give the raw shape, which the reference keeps.)
func GuestResult(r *sdk.CallToolResult) (json.RawMessage, error) {
	return json.Marshal(r)
}
