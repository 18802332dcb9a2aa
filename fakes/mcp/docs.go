package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Names and fixed texts of the docs server, for specs to compare against.
const (
	// ToolCreateIssue has required and optional string fields and an array
	// (CM-MCP-03, CM-MCP-09: it is exposed as createIssue).
	ToolCreateIssue = "create_issue"
	// ToolSearchDocs has an enum, defaults, an integer range and a nested
	// object with its own required field.
	ToolSearchDocs = "search_docs"
	// ToolEcho returns its input as structuredContent and as JSON text.
	ToolEcho = "echo"
	// ToolReportFailure returns isError: true (CM-MCP-08).
	ToolReportFailure = "report_failure"
	// ToolExplode fails with a JSON-RPC error: the server error of CM-MCP-08.
	ToolExplode = "explode"
	// ToolSlow sleeps for input.ms milliseconds (default 200, at most
	// 10000), returning early when the call is cancelled.
	ToolSlow = "slow"
	// ToolStructured returns structuredContent with an output schema, and a
	// _meta key beyond content/structuredContent/isError (CM-MCP-10).
	ToolStructured = "structured"
	// ToolServerStats reports {calls, pid}: the tool calls this server
	// handled before this one and the server's process id.
	ToolServerStats = "server_stats"

	// ResourceMemo is the docs server's resource (CM-MCP-06).
	ResourceMemo = "memo://one"
	// ResourceMemoText is its text.
	ResourceMemoText = "First memo: the release is on Friday."
	// PromptBrief is the docs server's prompt; it takes the required
	// argument "topic" (CM-MCP-06).
	PromptBrief = "brief"
	// ReportFailureText is the text content of report_failure's result.
	ReportFailureText = "quota exceeded for this repository"
	// ExplodeMessage is the error message of explode.
	ExplodeMessage = "explode: the fake server failed on purpose"
)

// StructuredResult is the structuredContent of the structured tool.
var StructuredResult = map[string]any{"temperature": 21.5, "unit": "celsius", "tags": []any{"mild", "dry"}}

func addDocs(s *Server) {
	s.add(ToolCreateIssue, "Create an issue in a repository.", `{
  "type": "object",
  "properties": {
    "owner": {"type": "string", "description": "Repository owner"},
    "repo": {"type": "string", "description": "Repository name"},
    "title": {"type": "string", "description": "Issue title"},
    "body": {"type": "string", "description": "Issue body in Markdown"},
    "labels": {"type": "array", "items": {"type": "string"}, "description": "Labels to add"}
  },
  "required": ["owner", "repo", "title"]
}`, func(_ context.Context, a map[string]any) (*sdk.CallToolResult, error) {
		r := text(fmt.Sprintf("created issue #1 in %v/%v: %v", a["owner"], a["repo"], a["title"]))
		r.StructuredContent = map[string]any{"number": 1, "owner": a["owner"], "repo": a["repo"], "title": a["title"]}
		return r, nil
	})

	s.add(ToolSearchDocs, "Search the documentation.\nReturns the matching pages.", `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "description": "Words to look for"},
    "format": {"type": "string", "enum": ["markdown", "text"], "default": "markdown", "description": "Output format"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10, "description": "Maximum number of hits"},
    "filter": {
      "type": "object",
      "description": "Narrow the search",
      "properties": {
        "tag": {"type": "string", "description": "Only pages with this tag"},
        "since": {"type": "string", "description": "Only pages changed since this ISO date"}
      },
      "required": ["tag"]
    }
  },
  "required": ["query"]
}`, func(_ context.Context, a map[string]any) (*sdk.CallToolResult, error) {
		if _, ok := a["format"]; !ok {
			a["format"] = "markdown"
		}
		if _, ok := a["limit"]; !ok {
			a["limit"] = 10
		}
		r := text(jsonText(a))
		r.StructuredContent = a
		return r, nil
	})

	s.add(ToolEcho, "Echo the input back.", `{"type": "object", "additionalProperties": true}`,
		func(_ context.Context, a map[string]any) (*sdk.CallToolResult, error) {
			r := text(jsonText(a))
			r.StructuredContent = a
			return r, nil
		})

	s.add(ToolReportFailure, "Always fails and reports it in the result (isError).", `{"type": "object", "properties": {}}`,
		func(context.Context, map[string]any) (*sdk.CallToolResult, error) {
			r := text(ReportFailureText)
			r.IsError = true
			return r, nil
		})

	s.add(ToolExplode, "Always fails with a server error.", `{"type": "object", "properties": {}}`,
		func(context.Context, map[string]any) (*sdk.CallToolResult, error) {
			return nil, errors.New(ExplodeMessage)
		})

	s.add(ToolSlow, "Wait before answering.", `{
  "type": "object",
  "properties": {"ms": {"type": "integer", "minimum": 0, "maximum": 10000, "default": 200, "description": "How long to wait, in milliseconds"}}
}`, func(ctx context.Context, a map[string]any) (*sdk.CallToolResult, error) {
		ms := 200.0
		if v, ok := a["ms"].(float64); ok {
			ms = min(max(v, 0), 10000)
		}
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
			return text(fmt.Sprintf("slept %d ms", int(ms))), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})

	s.addWithOutput(ToolStructured, "Current conditions as structured content.", `{"type": "object", "properties": {}}`, `{
  "type": "object",
  "properties": {"temperature": {"type": "number"}, "unit": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}},
  "required": ["temperature", "unit"]
}`, func(context.Context, map[string]any) (*sdk.CallToolResult, error) {
		r := text(jsonText(StructuredResult))
		r.StructuredContent = StructuredResult
		r.Meta = sdk.Meta{"fake/trace": "trace-1"}
		return r, nil
	})

	s.add(ToolServerStats, "Report how many tool calls this server handled before this one, and its process id.", `{"type": "object", "properties": {}}`,
		func(context.Context, map[string]any) (*sdk.CallToolResult, error) {
			st := map[string]any{"calls": s.calls.Load() - 1, "pid": os.Getpid()}
			r := text(jsonText(st))
			r.StructuredContent = st
			return r, nil
		})

	s.SDK.AddResource(&sdk.Resource{URI: ResourceMemo, Name: "memo-one", Description: "The first memo.", MIMEType: "text/plain"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: ResourceMemoText}}}, nil
		})

	s.SDK.AddPrompt(&sdk.Prompt{Name: PromptBrief, Description: "Write a brief about a topic.",
		Arguments: []*sdk.PromptArgument{{Name: "topic", Description: "What the brief is about", Required: true}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			topic := req.Params.Arguments["topic"]
			if topic == "" {
				return nil, errors.New(`prompt "brief" needs the argument "topic"`)
			}
			return &sdk.GetPromptResult{Description: "A brief about " + topic,
				Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: BriefText(topic)}}}}, nil
		})
}

// BriefText is the text of the brief prompt's only message for a topic.
func BriefText(topic string) string { return "Write a short brief about " + topic + "." }
