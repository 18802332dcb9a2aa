package server

import (
	"context"
	"errors"
	"testing"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/creachadair/jrpc2"
)

// Malformed mcpServers are bad params (spec/protocol.md §5.5).
func TestPrepareRejectsMalformedMCPServers(t *testing.T) {
	c := serve(t)
	for name, servers := range map[string][]any{
		"empty name":      {map[string]any{"name": "", "transport": "http", "url": "http://127.0.0.1:1/mcp"}},
		"duplicate name":  {map[string]any{"name": "a", "transport": "http", "url": "http://x/mcp"}, map[string]any{"name": "a", "transport": "http", "url": "http://y/mcp"}},
		"stdio, no cmd":   {map[string]any{"name": "a", "transport": "stdio"}},
		"http, no url":    {map[string]any{"name": "a", "transport": "http"}},
		"other transport": {map[string]any{"name": "a", "transport": "sse", "url": "http://x/mcp"}},
	} {
		p := map[string]any{"run": "r-" + name, "agentId": "a", "sessionId": "s", "sessionKey": "k", "senderId": "x", "channel": "c",
			"tools": []any{}, "mcpServers": servers}
		_, err := c.Call(context.Background(), protocol.MethodRunPrepare, p)
		var je *jrpc2.Error
		if !errors.As(err, &je) || je.Code != jrpc2.InvalidParams {
			t.Errorf("%s: got %v, want a -32602 error", name, err)
		}
	}
}
