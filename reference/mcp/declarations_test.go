package mcp_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/google/go-cmp/cmp"

	"github.com/codemode-conformance/codemode/reference/mcp"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// entries reads testdata/tools.json in catalog order (source, owner, name).
func entries(t *testing.T) []mcp.Entry {
	t.Helper()
	b, err := os.ReadFile("testdata/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw []struct {
		ID string `json:"id"`
		protocol.ToolSpec
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	sort.SliceStable(raw, func(i, j int) bool {
		if raw[i].Owner != raw[j].Owner {
			return raw[i].Owner < raw[j].Owner
		}
		return raw[i].Name < raw[j].Name
	})
	out := make([]mcp.Entry, len(raw))
	for i, r := range raw {
		out[i] = mcp.Entry{ID: r.ID, Spec: r.ToolSpec}
	}
	return out
}

// parseTS parses a declaration file with esbuild's TypeScript loader: the
// rendered text must be valid TypeScript.
func parseTS(t *testing.T, path, text string) {
	t.Helper()
	r := api.Transform(text, api.TransformOptions{Loader: api.LoaderTS, Sourcefile: path})
	for _, e := range r.Errors {
		line := ""
		if e.Location != nil {
			line = e.Location.LineText
		}
		t.Errorf("%s does not parse as TypeScript: %s\n  at: %s\n--- text ---\n%s", path, e.Text, line, text)
	}
}

func TestRenderedDeclarationsParseAndMatchTheGoldenFiles(t *testing.T) {
	files := mcp.Render(mcp.Plan(entries(t)))
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
		parseTS(t, f.Path, f.Text)
		golden := filepath.Join("testdata", strings.ReplaceAll(f.Path, "/", "_")+".golden")
		if *update {
			if err := os.WriteFile(golden, []byte(f.Text), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test ./reference/mcp -update to write it)", err)
		}
		if d := cmp.Diff(string(want), f.Text); d != "" {
			t.Errorf("%s differs from %s (-want +got):\n%s", f.Path, golden, d)
		}
	}
	want := []string{"mcp/index.d.ts", "mcp/acmeTools2.d.ts", "mcp/docs.d.ts", "mcp/index_2.d.ts"}
	if d := cmp.Diff(want, paths); d != "" {
		t.Errorf("virtual file paths (-want +got):\n%s", d)
	}
}

func TestToolHeadersParse(t *testing.T) {
	for _, s := range mcp.Plan(entries(t)) {
		for _, tool := range s.Tools {
			parseTS(t, s.Path+"#"+tool.Ident, "type McpToolResult = unknown;\n"+mcp.ToolHeader(s, tool))
		}
	}
}

func TestRenderOfNoServerIsNoFile(t *testing.T) {
	if f := mcp.Render(nil); len(f) != 0 {
		t.Errorf("Render(nil) = %v, want no files: a run without visible MCP servers has an empty API table", f)
	}
}

func TestRenamingIsDeterministicAndSafe(t *testing.T) {
	got := map[string]string{}
	for _, s := range mcp.Plan(entries(t)) {
		got[s.Name] = s.Ident
		for _, tool := range s.Tools {
			got[s.Name+"/"+tool.Name] = tool.Ident
		}
	}
	want := map[string]string{
		"acme.tools-2": "acmeTools2", "docs": "docs", "index": "index_2",
		"acme.tools-2/get-weather": "getWeather", "acme.tools-2/2fa-code": "_2faCode",
		"acme.tools-2/__proto__": "proto", "acme.tools-2/constructor": "constructor",
		"acme.tools-2/do-thing": "doThing", "acme.tools-2/do_thing": "doThing_2",
		"acme.tools-2/resources": "resources_2", "acme.tools-2/then": "then_2",
		"docs/create_issue": "createIssue", "docs/search_docs": "searchDocs", "docs/echo": "echo", "docs/odd": "odd",
		"index/delete": "delete_",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("identifiers (-want +got):\n%s", d)
	}
}

func TestIdentifier(t *testing.T) {
	for in, want := range map[string]string{
		"create_issue": "createIssue", "chrome-devtools": "chromeDevtools", "take_snapshot": "takeSnapshot",
		"": "x", "---": "x", "9": "_9", "class": "class_", "Ünïcode": "nCode", "a.b.c": "aBC",
	} {
		if got := mcp.Identifier(in, "x"); got != want {
			t.Errorf("Identifier(%q) = %q, want %q", in, got, want)
		}
	}
}

// Names and descriptions from a server are data: nothing in them may end a
// comment, a string or a declaration early.
func TestHostileTextStaysInsideTheDeclarations(t *testing.T) {
	nasty := []string{"*/ x", "a\nb", "x\u2028y", `"quote"`, "`tick`", "<tag>", "\\", "$api", "then", "prompts", "123", "日本", ""}
	var es []mcp.Entry
	for i, n := range nasty {
		schema := map[string]any{"type": "object", "properties": map[string]any{n: map[string]any{"type": "string", "description": n},
			"nested": map[string]any{"type": "object", "properties": map[string]any{n: map[string]any{"enum": []any{n, 1, nil}, "description": n}}}}, "required": []any{n}}
		b, _ := json.Marshal(schema)
		es = append(es, mcp.Entry{ID: "mcp:" + n + ":" + n, Spec: protocol.ToolSpec{Name: n, Description: n + " */ /*", Source: "mcp", Owner: nasty[(i+1)%len(nasty)], Parameters: b}})
	}
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Spec.Owner != es[j].Spec.Owner {
			return es[i].Spec.Owner < es[j].Spec.Owner
		}
		return es[i].Spec.Name < es[j].Spec.Name
	})
	plan := mcp.Plan(es)
	for _, f := range mcp.Render(plan) {
		parseTS(t, f.Path, f.Text)
	}
	seen := map[string]bool{}
	for _, s := range plan {
		if seen[s.Path] {
			t.Errorf("two servers share the path %s", s.Path)
		}
		seen[s.Path] = true
		for _, tool := range s.Tools {
			parseTS(t, s.Path+"#"+tool.Ident, "type McpToolResult = unknown;\n"+mcp.ToolHeader(s, tool))
		}
	}
}
