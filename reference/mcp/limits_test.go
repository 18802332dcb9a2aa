package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-conformance/codemode/reference/mcp"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// envStdioServer makes this test binary a one-tool MCP stdio server (the
// official SDK's), so the cap is tested on real children.
const envStdioServer = "CODEMODE_REFMCP_TEST_STDIO"

func TestMain(m *testing.M) {
	if os.Getenv(envStdioServer) != "" {
		s := sdk.NewServer(&sdk.Implementation{Name: "limits-test", Version: "0"}, nil)
		s.AddTool(&sdk.Tool{Name: "ping", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "pong"}}}, nil
			})
		if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil && !errors.Is(err, context.Canceled) {
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func stdioServer(t *testing.T, name string) protocol.MCPServer {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return protocol.MCPServer{Name: name, Transport: protocol.MCPTransportStdio, Command: exe, Env: map[string]string{envStdioServer: "1"}}
}

func setPolicy(t *testing.T, p mcp.Policy) {
	mcp.SetPolicy(p)
	t.Cleanup(func() { mcp.SetPolicy(mcp.Policy{}) })
}

// --mcp-allow: a command or URL off the list fails run.prepare's
// validation, naming the entry and the flag (issue 28 N11).
func TestPolicyAllowlistRefusesUnlistedServers(t *testing.T) {
	cmd := protocol.MCPServer{Name: "c", Transport: "stdio", Command: "/usr/local/bin/weather-mcp"}
	web := protocol.MCPServer{Name: "w", Transport: "http", URL: "http://127.0.0.1:9000/mcp"}
	for _, tc := range []struct {
		allow   []string
		server  protocol.MCPServer
		allowed bool
	}{
		{nil, cmd, true}, {nil, web, true},
		{[]string{}, cmd, false}, {[]string{}, web, false},
		{[]string{"*"}, cmd, true}, {[]string{"*"}, web, true},
		{[]string{"/usr/local/bin/*"}, cmd, true}, {[]string{"/usr/local/bin/*"}, web, false},
		{[]string{"/usr/bin/*", "weather-mcp"}, cmd, false},
		{[]string{"http://127.0.0.1:9000/"}, web, true}, {[]string{"http://127.0.0.1:9000/"}, cmd, false},
		{[]string{"http://127.0.0.1:9001/"}, web, false},
		{[]string{"http://127.0.0.1:9000/*"}, web, false}, // a URL entry is a prefix, not a glob
	} {
		setPolicy(t, mcp.Policy{Allow: tc.allow})
		err := mcp.Validate([]protocol.MCPServer{tc.server})
		if tc.allowed && err != nil {
			t.Errorf("allow %q, %s: %v, want allowed", tc.allow, tc.server.Name, err)
		}
		if !tc.allowed && (!errors.Is(err, mcp.ErrNotAllowed) || !strings.Contains(err.Error(), "mcp-allow") || !strings.Contains(err.Error(), `"`+tc.server.Name+`"`)) {
			t.Errorf("allow %q, %s: %v, want ErrNotAllowed naming the server and --mcp-allow", tc.allow, tc.server.Name, err)
		}
	}
}

// --max-mcp-processes: a stdio child beyond the cap waits for a place and
// is left out with a precise reason when none frees within the connect
// timeout; a place frees when its run closes (issue 28 N11).
func TestProcessCapBoundsStdioChildren(t *testing.T) {
	setPolicy(t, mcp.Policy{MaxProcesses: 1})
	first := mcp.Connect(context.Background(), []protocol.MCPServer{stdioServer(t, "first")}, mcp.Options{Stderr: os.Stderr})
	if len(first.ToolSpecs()) != 1 || mcp.ProcessesRunning() != 1 {
		first.Close()
		t.Fatalf("first run: tools %+v, %d children counted; want its one tool and one child", first.ToolSpecs(), mcp.ProcessesRunning())
	}

	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	over := mcp.Connect(ctx, []protocol.MCPServer{stdioServer(t, "over")}, mcp.Options{Stderr: &log})
	cancel()
	over.Close()
	if len(over.ToolSpecs()) != 0 || !strings.Contains(log.String(), mcp.ErrTooManyProcesses.Error()) || !strings.Contains(log.String(), "--max-mcp-processes") {
		t.Errorf("a child over the cap: tools %+v, stderr %q; want none and a reason naming --max-mcp-processes", over.ToolSpecs(), log.String())
	}

	// A connect waiting for a place gets it when the first run closes.
	waited := make(chan *mcp.Run, 1)
	go func() {
		waited <- mcp.Connect(context.Background(), []protocol.MCPServer{stdioServer(t, "waited")}, mcp.Options{Stderr: os.Stderr})
	}()
	if err := first.Close(); err != nil {
		t.Errorf("closing the first run: %v", err)
	}
	r := <-waited
	defer r.Close()
	if len(r.ToolSpecs()) != 1 {
		t.Errorf("the waiting run after a place freed: tools %+v, want one", r.ToolSpecs())
	}
	if err := r.Close(); err != nil || mcp.ProcessesRunning() != 0 {
		t.Errorf("after every run closed: close %v, %d children counted, want 0", err, mcp.ProcessesRunning())
	}
}
