// Package mcp is the conformance suite of the MCP namespace and its virtual
// declaration files (feature mcp: CM-MCP-01..11, CM-CAT-05, CM-EXEC-15): a
// target gets real MCP servers in run.prepare (fakes/mcp, on the official Go
// SDK), over stdio (the target starts them) and over streamable HTTP (the
// harness starts them on 127.0.0.1), and every spec runs over both.
package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"sync"

	fakemcp "github.com/codemode-conformance/codemode/fakes/mcp"
	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/google/go-cmp/cmp"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Server names the specs give the fake servers in run.prepare.
const (
	docs = "docs"
	// hostileName is a server name that is not a safe JavaScript identifier
	// (a dot, a hyphen, a digit): CM-MCP-07.
	hostileName = "acme.tools-2"
)

// docsTools are the tool names of the docs server (fakes/mcp), in the order
// the fake registers them.
var docsTools = []string{fakemcp.ToolCreateIssue, fakemcp.ToolSearchDocs, fakemcp.ToolEcho, fakemcp.ToolReportFailure,
	fakemcp.ToolExplode, fakemcp.ToolSlow, fakemcp.ToolStructured, fakemcp.ToolServerStats}

// forEachTransport declares body's specs once per MCP transport, in a
// container named after it ("over stdio", "over http").
func forEachTransport(body func(transport string)) {
	for _, tr := range MCPTransports {
		ginkgo.Context("over "+tr, func() { body(tr) })
	}
}

// mcpRun prepares a code mode run (tools.codeMode true) with the given fake
// MCP servers (name → kind) over transport, plus one ordinary harness tool
// (plugin util/sum_numbers) so the catalog has a guest-visible entry beside
// the MCP ones.
func mcpRun(ctx context.Context, transport string, servers map[string]fakemcp.Kind) *Run {
	ginkgo.GinkgoHelper()
	return mcpRunWith(ctx, transport, servers, RunOptions{})
}

// mcpRunWith is mcpRun with more run options (a policy, say); o.Tools and
// o.MCPServers are set here, and a nil o.CodeMode means true.
func mcpRunWith(ctx context.Context, transport string, servers map[string]fakemcp.Kind, o RunOptions) *Run {
	ginkgo.GinkgoHelper()
	names := make([]string, 0, len(servers))
	for n := range Sorted(servers) {
		names = append(names, n)
	}
	sort.Strings(names)
	var ms []MCPServer
	for _, n := range names {
		ms = append(ms, MCPServer{Name: n, Kind: servers[n], Transport: transport})
	}
	if o.CodeMode == nil {
		o.CodeMode = true
	}
	o.Tools, o.MCPServers = []tools.Tool{sumTool()}, ms
	r := NewRun(ctx, o)
	Expect(r.Prepared.CodeModeActive).To(BeTrue(), "a run with MCP servers over %s and code mode enabled must activate code mode: %+v", transport, r.Prepared)
	Expect(r.ModelToolNames()).To(ConsistOf("exec", "wait"), "MCP tools must go behind exec like any other tool (over %s)", transport)
	return r
}

// sumTool is the run's one ordinary harness tool.
func sumTool() tools.Tool {
	return tools.Tool{
		Spec: protocol.ToolSpec{Name: "sum_numbers", Description: "Add two numbers.", Source: protocol.SourcePlugin, Owner: "util",
			Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`)},
		Handler: func(_ context.Context, in json.RawMessage) (any, error) {
			var v struct{ A, B float64 }
			if err := json.Unmarshal(in, &v); err != nil {
				return nil, err
			}
			return map[string]any{"sum": v.A + v.B}, nil
		},
	}
}

// probe is guest code defining probe(f): it awaits f() and returns
// {resolved: value} or {caught: {type, name, message, code}} for what was
// thrown, so a cell can try a failing call and go on.
const probe = `const probe = async (f) => { try { return {resolved: await f()}; } catch (e) { ` +
	`return {caught: {type: e === null ? "null" : typeof e, name: e && typeof e === "object" ? e.name : undefined, message: e && typeof e === "object" ? e.message : String(e), code: e && typeof e === "object" ? e.code : undefined}}; } };` + "\n"

// jsName is guest code defining jsName(ns, original): the member of the
// namespace object ns whose name is original in lower case without "_" and
// "-" (create_issue → createIssue), or undefined. CM-MCP-09 pins camelCase;
// the other specs find tools with it so they judge only their own
// requirement.
const jsName = `const jsName = (ns, original) => { const want = original.toLowerCase().replace(/[-_]/g, ""); ` +
	`return Object.getOwnPropertyNames(ns).find((k) => k.toLowerCase().replace(/[-_]/g, "") === want); };` + "\n"

// callMCP is guest code defining callMCP(server, original, input): it calls
// the tool through MCP[server][jsName(…)] and fails loudly when there is no
// such member.
const callMCP = jsName + `const callMCP = (server, original, input) => { const ns = MCP[server]; if (!ns) throw new Error("no MCP." + server); ` +
	`const k = jsName(ns, original); if (!k || typeof ns[k] !== "function") throw new Error("MCP." + server + " has no function for tool " + original); return ns[k](input); };` + "\n"

// MCPGuest is guest code prefixed with probe, jsName and callMCP (see each).
func MCPGuest(body string) string { return probe + callMCP + body }

// ToolResult is an MCP tool result as the guest received it, read the way
// the profile requires: v2 resolves the MCP result itself ({content,
// structuredContent?, isError?, …}); v1 may also wrap it as {content,
// details} with details the MCP result (OpenClaw's tool result shape).
type ToolResult struct {
	Content           []any
	StructuredContent any
	IsError           bool
	// Other are the members beyond content, structuredContent and isError.
	Other map[string]any
	// Shape says which shape was read: "raw" or "{content, details}".
	Shape string
}

// ReadToolResult reads v (a resolved MCP call, decoded JSON) under
// Profile() (the framework's: the profile the run judges); the error says what shape the profile wanted.
func ReadToolResult(v any) (ToolResult, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return ToolResult{}, fmt.Errorf("profile %s: an MCP call must resolve to an object (McpToolResult), got %T %v", Profile(), v, v)
	}
	raw, shape := m, "raw"
	if d, ok := m["details"].(map[string]any); ok && Profile() != "v2" && len(m) == 2 {
		if _, hasContent := m["content"]; hasContent {
			raw, shape = d, "{content, details}"
			if _, ok := raw["content"]; !ok {
				raw = map[string]any{"content": m["content"]}
				for k, v := range Sorted(d) {
					raw[k] = v
				}
			}
		}
	}
	out := ToolResult{Shape: shape, Other: map[string]any{}}
	c, ok := raw["content"].([]any)
	if _, present := raw["content"]; present && !ok {
		return out, fmt.Errorf("profile %s (%s): content must be an array, got %T", Profile(), shape, raw["content"])
	}
	out.Content = c
	out.StructuredContent = raw["structuredContent"]
	if e, present := raw["isError"]; present {
		b, ok := e.(bool)
		if !ok {
			return out, fmt.Errorf("profile %s (%s): isError must be a boolean, got %T", Profile(), shape, e)
		}
		out.IsError = b
	}
	for k, v := range Sorted(raw) {
		if k != "content" && k != "structuredContent" && k != "isError" {
			out.Other[k] = v
		}
	}
	return out, nil
}

// MustToolResult is ReadToolResult failing the spec on a shape error.
func MustToolResult(v any, what string) ToolResult {
	ginkgo.GinkgoHelper()
	r, err := ReadToolResult(v)
	Expect(err).NotTo(HaveOccurred(), "%s: %v", what, v)
	ginkgo.AddReportEntry("MCP result shape", fmt.Sprintf("%s: profile %s, read as %s", what, Profile(), r.Shape), ginkgo.ReportEntryVisibilityFailureOrVerbose)
	return r
}

// Text is the text of the result's text content items, joined by "\n".
func (r ToolResult) Text() string {
	s := ""
	for _, c := range r.Content {
		if m, ok := c.(map[string]any); ok && m["type"] == "text" {
			if s != "" {
				s += "\n"
			}
			t, _ := m["text"].(string)
			s += t
		}
	}
	return s
}

// value decodes a completed result's value into a map, failing the spec
// when it is not one.
func value(res Result, what string) map[string]any {
	ginkgo.GinkgoHelper()
	Expect(res).To(BeCompleted(), what)
	m, ok := res.ValueAny().(map[string]any)
	Expect(ok).To(BeTrue(), "%s: the cell must return an object: %s", what, res)
	return m
}

// identifier is a JavaScript identifier as CM-MCP-07 requires for every
// exposed name (ASCII: what renaming produces).
var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// jsonUnmarshal decodes JSON text.
func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// diff is cmp.Diff of JSON-normalised values.
func diff(want, got any) string { return cmp.Diff(JSONNormal(want), JSONNormal(got)) }

// serverCalls is how many tools/call requests the run's server handled so
// far, not counting the ones serverCalls made itself: counted in process
// for HTTP, asked of the server (its server_stats tool) for stdio.
func serverCalls(ctx SpecContext, r *Run, server string) int64 {
	ginkgo.GinkgoHelper()
	s := r.MCP[server]
	if n, ok := s.Calls(); ok {
		return n
	}
	res, _ := r.RunToCompletion(ctx, MCPGuest(fmt.Sprintf(`return await callMCP(%q, %q, {});`, server, fakemcp.ToolServerStats)))
	Expect(res).To(BeCompleted(), "server_stats of the stdio server %q must answer", server)
	tr := MustToolResult(res.ValueAny(), "server_stats result")
	st, ok := tr.StructuredContent.(map[string]any)
	Expect(ok).To(BeTrue(), "server_stats must carry structuredContent {calls, pid}: %s", res)
	n, _ := st["calls"].(float64)
	statsMu.Lock()
	defer statsMu.Unlock()
	before := statsCalls[s]
	statsCalls[s]++
	return int64(n) - before
}

var (
	statsMu sync.Mutex
	// statsCalls counts the server_stats calls serverCalls made per server.
	statsCalls = map[*StartedMCP]int64{}
)
