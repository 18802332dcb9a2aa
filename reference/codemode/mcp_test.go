package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// envStdioServer makes the test binary serve testServer over stdio (the
// run.prepare stdio launch of TestMCPStdioServerStopsAtRunEnd).
const envStdioServer = "CODEMODE_REFERENCE_TEST_MCP_STDIO"

func TestMain(m *testing.M) {
	if os.Getenv(envStdioServer) != "" {
		if err := testServer().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testServer is a small MCP server: the reference must not import fakes/,
// so its own tests bring their own.
func testServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "reference-test", Version: "1"}, nil)
	add := func(name, desc, schema string, h func(map[string]any) (*sdk.CallToolResult, error)) {
		s.AddTool(&sdk.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(schema)},
			func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				a := map[string]any{}
				_ = json.Unmarshal(req.Params.Arguments, &a)
				return h(a)
			})
	}
	text := func(s string) []sdk.Content { return []sdk.Content{&sdk.TextContent{Text: s}} }
	add("create_issue", "Create an issue.", `{"type":"object","properties":{"title":{"type":"string","description":"Issue title"},"body":{"type":"string"}},"required":["title"]}`,
		func(a map[string]any) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: text("created"), StructuredContent: a, Meta: sdk.Meta{"trace": "t1"}}, nil
		})
	add("report_failure", "Fails softly.", `{"type":"object"}`, func(map[string]any) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: text("quota exceeded"), IsError: true}, nil
	})
	add("explode", "Fails hard.", `{"type":"object"}`, func(map[string]any) (*sdk.CallToolResult, error) {
		return nil, errors.New("explode on purpose")
	})
	add("slow", "Answers after 1.5 s.", `{"type":"object"}`, func(map[string]any) (*sdk.CallToolResult, error) {
		time.Sleep(1500 * time.Millisecond)
		return &sdk.CallToolResult{Content: text("slow done")}, nil
	})
	add("pid", "Process id.", `{"type":"object"}`, func(map[string]any) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: text(strconv.Itoa(os.Getpid()))}, nil
	})
	for _, n := range []string{"constructor", "__proto__", "get-weather", "then"} {
		add(n, "Hostile "+n+".", `{"type":"object"}`, func(map[string]any) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: text(n)}, nil
		})
	}
	s.AddResource(&sdk.Resource{URI: "memo://one", Name: "one"}, func(_ context.Context, r *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: r.Params.URI, Text: "first memo"}}}, nil
	})
	s.AddPrompt(&sdk.Prompt{Name: "brief", Arguments: []*sdk.PromptArgument{{Name: "topic", Required: true}}},
		func(_ context.Context, r *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "brief on " + r.Params.Arguments["topic"]}}}}, nil
		})
	return s
}

// mcpRun prepares run "mcp" with the test server over streamable HTTP as
// "docs" and as "acme.tools-2", plus one harness tool.
func mcpRun(t *testing.T, servers ...protocol.MCPServer) (*Runtime, *countingInvoker) {
	t.Helper()
	return mcpRunWith(t, `{"enabled":true}`, servers...)
}

func mcpRunWith(t *testing.T, codeMode string, servers ...protocol.MCPServer) (*Runtime, *countingInvoker) {
	t.Helper()
	return mcpRunPolicy(t, codeMode, nil, servers...)
}

func mcpRunPolicy(t *testing.T, codeMode string, policy *protocol.Policy, servers ...protocol.MCPServer) (*Runtime, *countingInvoker) {
	t.Helper()
	return mcpRunProfile(t, "", codeMode, policy, servers...)
}

func mcpRunProfile(t *testing.T, profile, codeMode string, policy *protocol.Policy, servers ...protocol.MCPServer) (*Runtime, *countingInvoker) {
	t.Helper()
	eng, err := engine.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	if servers == nil {
		h := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return testServer() }, nil))
		t.Cleanup(h.Close)
		servers = []protocol.MCPServer{{Name: "docs", Transport: protocol.MCPTransportHTTP, URL: h.URL},
			{Name: "acme.tools-2", Transport: protocol.MCPTransportHTTP, URL: h.URL}}
	}
	inv := &countingInvoker{}
	rt := New(eng, inv, Options{Profile: profile})
	t.Cleanup(rt.Close)
	res := rt.Prepare(protocol.PrepareParams{Run: "faults", RunContext: protocol.RunContext{AgentID: "a", SessionID: "s", SessionKey: "k", SenderID: "x", Channel: "c"},
		CodeMode: json.RawMessage(codeMode), Tools: []protocol.ToolSpec{{Name: "echo", Description: "echo", Source: protocol.SourceOpenClaw, Owner: "core"}},
		MCPServers: servers, Policy: policy})
	if !res.CodeModeActive {
		t.Fatalf("prepare: %+v", res)
	}
	return rt, inv
}

// value runs code and returns its completed value as JSON, failing the
// test on any other status.
func value(t *testing.T, rt *Runtime, code string) string {
	t.Helper()
	res := execCode(t, rt, code)
	if res.Status != result.StatusCompleted {
		t.Fatalf("%s\n=> %s %s %s", code, res.Status, res.Code, res.Error)
	}
	b, _ := json.Marshal(res.Value)
	return string(b)
}

func TestMCPNamespaceCallsThroughTheExecutor(t *testing.T) {
	rt, inv := mcpRun(t)
	got := value(t, rt, `const r = await MCP.docs.createIssue({title: "t"}); return r;`)
	want := `{"_meta":{"trace":"t1"},"content":[{"type":"text","text":"created"}],"structuredContent":{"title":"t"}}`
	if got != want {
		t.Errorf("createIssue resolved %s, want the raw McpToolResult %s", got, want)
	}
	res := execCode(t, rt, `return await MCP.docs.createIssue({title: "x"});`)
	if res.Telemetry == nil || strings.Join(res.Telemetry.CalledToolIDs, ",") != "mcp:docs:create_issue" {
		t.Errorf("telemetry %+v, want calledToolIds [mcp:docs:create_issue]", res.Telemetry)
	}
	if n := inv.n.Load(); n != 0 {
		t.Errorf("%d tool.invoke calls for MCP tools, want 0: MCP goes to the server", n)
	}
}

func TestMCPEntriesAreHiddenFromTheToolsAPI(t *testing.T) {
	rt, _ := mcpRun(t)
	got := value(t, rt, `
const ids = ALL_TOOLS.map(t => t.id);
const found = (await tools.search("issue")).map(t => t.id);
let call, describe;
try { await tools.call("mcp:docs:create_issue", {}); } catch (e) { call = e.code; }
try { await tools.describe("mcp:docs:create_issue"); } catch (e) { describe = e.code; }
return {ids, found, call, describe, helper: typeof tools.create_issue};`)
	want := `{"ids":["openclaw:core:echo"],"found":[],"call":"invalid_input","describe":"invalid_input","helper":"undefined"}`
	if got != want {
		t.Errorf("got %s, want %s (CM-CAT-05)", got, want)
	}
}

func TestMCPFailureShapesLeaveTheVMUsable(t *testing.T) {
	rt, _ := mcpRun(t)
	got := value(t, rt, `
const soft = await MCP.docs.reportFailure({});
let hard, unknown, badArg, api;
try { await MCP.docs.explode({}); } catch (e) { hard = {name: e.name, code: e.code, message: e.message, data: e.data}; }
try { await MCP.docs.nope({}); } catch (e) { unknown = e.name; }
try { await MCP.docs.createIssue("x"); } catch (e) { badArg = e.code; }
try { await MCP.docs.$api("nope"); } catch (e) { api = e.code; }
return {soft: soft.isError, hard, unknown, badArg, api, after: 1 + 1};`)
	want := `{"soft":true,"hard":{"name":"ToolError","code":"nested_tool_failed","message":"explode on purpose","data":{"mcpCode":0,"server":"docs","tool":"explode"}},"unknown":"TypeError","badArg":"invalid_input","api":"invalid_input","after":2}`
	if got != want {
		t.Errorf("got  %s\nwant %s (CM-MCP-08)", got, want)
	}
}

func TestMCPHostileNamesArePlainMembers(t *testing.T) {
	rt, _ := mcpRun(t)
	got := value(t, rt, `
const a = MCP.acmeTools2;
const r = [await a.constructor({}), await a.proto({}), await a.getWeather({}), await a.then_2({})].map(x => x.content[0].text);
return {r, proto: Object.getPrototypeOf(a), polluted: ({}).polluted === undefined && typeof Object.prototype.getWeather,
  keys: Object.keys(a), frozen: Object.isFrozen(a) && Object.isFrozen(MCP)};`)
	want := `{"r":["constructor","__proto__","get-weather","then"],"proto":null,"polluted":"undefined","keys":["proto","constructor","createIssue","explode","getWeather","pid","reportFailure","slow","then_2","$api","resources","prompts"],"frozen":true}`
	if got != want {
		t.Errorf("got  %s\nwant %s (CM-MCP-07)", got, want)
	}
}

func TestAPIReadsTheVirtualDeclarations(t *testing.T) {
	rt, inv := mcpRun(t)
	got := value(t, rt, `
const files = await API.list("mcp");
const text = await API.read("mcp/docs.d.ts");
const errs = [];
for (const p of ["mcp/../mcp/docs.d.ts", "./mcp/docs.d.ts", "mcp/nope.d.ts", 42]) {
  try { await API.read(p); errs.push("read " + p); } catch (e) { errs.push(e.code); }
}
files[0].path = "x";
const again = await API.list();
const h = await MCP.docs.$api("createIssue", {schema: true});
return {paths: again.map(f => f.path), has: text.includes("declare namespace MCP.docs") && text.includes("function createIssue(input: {"),
  errs, header: h.text.includes("function createIssue"), schema: h.tools[0].inputSchema.required, list: Object.keys(API)};`)
	want := `{"paths":["mcp/index.d.ts","mcp/acmeTools2.d.ts","mcp/docs.d.ts"],"has":true,"errs":["invalid_input","invalid_input","invalid_input","invalid_input"],"header":true,"schema":["title"],"list":["list","read"]}`
	if got != want {
		t.Errorf("got  %s\nwant %s (CM-MCP-02..05, CM-MCP-11)", got, want)
	}
	if n := inv.n.Load(); n != 0 {
		t.Errorf("%d bridge calls to read declarations, want 0", n)
	}
}

func TestMCPResourcesAndPrompts(t *testing.T) {
	rt, _ := mcpRun(t)
	got := value(t, rt, `
const r = await MCP.docs.resources.read({uri: "memo://one"});
const p = await MCP.docs.prompts.get({name: "brief", arguments: {topic: "release"}});
return [r.contents[0].text, p.messages[0].content.text];`)
	if want := `["first memo","brief on release"]`; got != want {
		t.Errorf("got %s, want %s (CM-MCP-06)", got, want)
	}
}

func TestMCPStdioServerStopsAtRunEnd(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rt, _ := mcpRun(t, protocol.MCPServer{Name: "docs", Transport: protocol.MCPTransportStdio, Command: exe, Env: map[string]string{envStdioServer: "1"}})
	got := value(t, rt, `return (await MCP.docs.pid({})).content[0].text;`)
	pid, err := strconv.Atoi(strings.Trim(got, `"`))
	if err != nil || pid == os.Getpid() {
		t.Fatalf("pid tool returned %s, want the child's pid", got)
	}
	if !rt.End("faults") {
		t.Fatal("End: the run was not prepared")
	}
	// End waits for the child: it is gone (reaped) when End returns.
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("the stdio MCP server (pid %d) outlived run.end", pid)
	}
}

// A slow MCP call suspends the cell like any nested call; wait delivers it.
func TestSlowMCPCallSuspendsAndWaitResumes(t *testing.T) {
	rt, _ := mcpRunWith(t, `{"enabled":true,"timeoutMs":1000}`)
	res := execCode(t, rt, `const r = await MCP.docs.slow({}); return r.content[0].text;`)
	if res.Status != result.StatusWaiting || res.Reason != result.ReasonPendingTools || len(res.PendingToolCalls) != 1 || res.PendingToolCalls[0].ToolID != "mcp:docs:slow" {
		t.Fatalf("exec: %+v, want waiting with the MCP call pending as mcp:docs:slow", res)
	}
	in, _ := json.Marshal(map[string]string{"runId": res.RunID})
	// Each wait drains for a quarter of timeoutMs: keep waiting (bounded)
	// until the 1.5 s call has answered.
	for end := time.Now().Add(20 * time.Second); res.Status == result.StatusWaiting && time.Now().Before(end); {
		var err error
		res, err = rt.Wait(context.Background(), "faults", "wait", in)
		if err != nil {
			t.Fatal(err)
		}
	}
	if res.Status != result.StatusCompleted || string(res.Value) != `"slow done"` {
		t.Errorf("wait: %+v, want completed with \"slow done\"", res)
	}
}

// run.abort stops the run's stdio servers too: no later exec can use them.
func TestMCPStdioServerStopsAtRunAbort(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rt, _ := mcpRun(t, protocol.MCPServer{Name: "docs", Transport: protocol.MCPTransportStdio, Command: exe, Env: map[string]string{envStdioServer: "1"}})
	pid, err := strconv.Atoi(strings.Trim(value(t, rt, `return (await MCP.docs.pid({})).content[0].text;`), `"`))
	if err != nil {
		t.Fatal(err)
	}
	rt.Abort("faults")
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("the stdio MCP server (pid %d) outlived run.abort", pid)
	}
}

// Policy applies to MCP tools like to any tool: a denied tool is neither in
// the namespace nor in the declarations, and a server whose every tool is
// denied is not visible (spec/protocol.md §5.5).
func TestPolicyHidesDeniedMCPTools(t *testing.T) {
	rt, _ := mcpRunPolicy(t, `{"enabled":true}`, &protocol.Policy{Deny: []string{"mcp:docs:explode", "mcp:acme.tools-2"}})
	got := value(t, rt, `
const text = await API.read("mcp/docs.d.ts");
return {servers: Object.keys(MCP), explode: typeof MCP.docs.explode, declared: text.includes("function explode("),
  files: (await API.list()).map(f => f.path)};`)
	want := `{"servers":["docs"],"explode":"undefined","declared":false,"files":["mcp/index.d.ts","mcp/docs.d.ts"]}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestQueuedMCPCallFollowsRunUpdate: an MCP call waiting in the bridge
// queue is resolved in the run's catalog when it is sent: after run.update
// restrictTo removed its tool it rejects as an unknown MCP tool instead of
// reaching the server (CM-NEST-16, CM-RES-07).
func TestQueuedMCPCallFollowsRunUpdate(t *testing.T) {
	rt, _ := mcpRunProfile(t, "v2", `{"enabled":true,"timeoutMs":1000,"maxPendingToolCalls":1}`, nil)
	res := execCode(t, rt, `const slow = MCP.docs.slow({});
const queued = MCP.docs.createIssue({title: "t"}).then(() => "called", (e) => "refused: " + e.message);
await slow;
return await queued;`)
	if res.Status != result.StatusWaiting {
		t.Fatalf("exec: %s %s %s, want waiting on the slow MCP call with create_issue queued", res.Status, res.Value, res.Error)
	}
	if err := rt.Update(protocol.UpdateParams{Run: "faults", RestrictTo: []string{"echo", "slow"}}); err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(map[string]string{"runId": res.RunID})
	for end := time.Now().Add(20 * time.Second); res.Status == result.StatusWaiting && time.Now().Before(end); {
		var err error
		if res, err = rt.Wait(context.Background(), "faults", "wait", in); err != nil {
			t.Fatal(err)
		}
	}
	want := `"refused: Unknown MCP tool id \"mcp:docs:create_issue\". Read API.list(\"mcp\") for the visible MCP tools."`
	if res.Status != result.StatusCompleted || string(res.Value) != want {
		t.Errorf("wait: %s %s %s, want completed %s: the queued call of the removed MCP tool must reject, never be sent", res.Status, res.Value, res.Error, want)
	}
}
