package mcp

import (
	"context"
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// handler is a tool body: it gets the raw arguments and returns the result.
type handler func(ctx context.Context, args map[string]any) (*sdk.CallToolResult, error)

// add registers a tool with an exact JSON schema (the SDK's raw AddTool, so
// the schema a client lists is byte-for-byte what is written here) and counts
// its calls.
func (s *Server) add(name, description, schema string, h handler) {
	s.addWithOutput(name, description, schema, "", h)
}

func (s *Server) addWithOutput(name, description, schema, output string, h handler) {
	t := &sdk.Tool{Name: name, Description: description, InputSchema: json.RawMessage(schema)}
	if output != "" {
		t.OutputSchema = json.RawMessage(output)
	}
	s.SDK.AddTool(t, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		s.calls.Add(1)
		args := map[string]any{}
		if len(req.Params.Arguments) > 0 {
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, err
			}
		}
		return h(ctx, args)
	})
}

// text is a result with one text content item.
func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// jsonText renders v as compact JSON for a text content item.
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
