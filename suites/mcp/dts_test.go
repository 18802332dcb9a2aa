package mcp_test

import (
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/suites/mcp"
	"github.com/google/go-cmp/cmp"
)

// The esbuild check accepts the seed's declaration and rejects text that is
// not TypeScript: the CM-MCP-03 and CM-MCP-07 parse checks can fail.
func TestParseTypeScript(t *testing.T) {
	seed := `type McpToolResult = { content?: unknown[]; structuredContent?: unknown; isError?: boolean; [key: string]: unknown; };
declare namespace MCP.github {
  /** Return this TypeScript-style API header. */
  function $api(toolName?: string, options?: { schema?: boolean }): Promise<McpApiHeader>;
  /**
   * Create a GitHub issue.
   * @param owner Repository owner
   */
  function createIssue(input: { owner: string; body?: string; format?: "markdown" | "text" }): Promise<McpToolResult>;
}`
	if errs := mcp.ParseTypeScript("seed.d.ts", seed); len(errs) != 0 {
		t.Errorf("the seed's declaration must parse, got %v", errs)
	}
	for _, bad := range []string{
		"declare namespace MCP.acme.tools-2 { function get-weather(input: {}): Promise<McpToolResult>; }",
		"declare namespace MCP.x { function 2fa(input: {}): Promise<McpToolResult>; }",
		"declare namespace MCP.x { function f(input: { a: string ): Promise<McpToolResult>; }",
	} {
		if errs := mcp.ParseTypeScript("bad.d.ts", bad); len(errs) == 0 {
			t.Errorf("%q must not parse as TypeScript", bad)
		}
	}
}

// Squeeze makes layout irrelevant and keeps words apart.
func TestSqueeze(t *testing.T) {
	a := mcp.Squeeze("function createIssue(input: {\n    owner: string;\n    body?: string;\n  }): Promise<McpToolResult>;")
	b := mcp.Squeeze("function createIssue( input:{owner:string; body?:string} ) : Promise< McpToolResult >;")
	if a != b {
		t.Errorf("layouts differ after Squeeze:\n%s\n%s", a, b)
	}
	if !strings.Contains(a, "body?:string}") {
		t.Errorf("Squeeze(%q) lost the optional member", a)
	}
}

// The golden comparison ignores indentation and blank lines, nothing else.
func TestDeclarationLines(t *testing.T) {
	got := mcp.DeclarationLines("declare namespace MCP.docs {\r\n\n    function echo(input: {}):   Promise<McpToolResult>;\n}\n")
	want := []string{"declare namespace MCP.docs {", "function echo(input: {}): Promise<McpToolResult>;", "}"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// ReadToolResult reads both generations' shapes as the profile allows.
func TestReadToolResult(t *testing.T) {
	raw := map[string]any{"content": []any{map[string]any{"type": "text", "text": "x"}}, "structuredContent": map[string]any{"a": 1.0}, "isError": true, "_meta": "m"}
	r, err := mcp.ReadToolResult(raw)
	if err != nil {
		t.Fatal(err)
	}
	if r.Shape != "raw" || !r.IsError || r.Text() != "x" || cmp.Diff(map[string]any{"_meta": "m"}, r.Other) != "" {
		t.Errorf("raw result read as %+v", r)
	}
	wrapped := map[string]any{"content": []any{map[string]any{"type": "text", "text": "x"}}, "details": map[string]any{"structuredContent": map[string]any{"a": 1.0}, "isError": true}}
	r, err = mcp.ReadToolResult(wrapped)
	if err != nil {
		t.Fatal(err)
	}
	if r.Shape != "{content, details}" || !r.IsError || r.Text() != "x" || cmp.Diff(map[string]any{"a": 1.0}, r.StructuredContent) != "" {
		t.Errorf("{content, details} result read as %+v", r)
	}
	if _, err := mcp.ReadToolResult("text"); err == nil {
		t.Error("a string is no McpToolResult")
	}
	if _, err := mcp.ReadToolResult(map[string]any{"isError": "yes"}); err == nil {
		t.Error("isError must be a boolean")
	}
}
