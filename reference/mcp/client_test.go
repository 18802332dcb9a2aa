package mcp_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/reference/mcp"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

func TestValidateNamesTheBadEntry(t *testing.T) {
	ok := protocol.MCPServer{Name: "a", Transport: "http", URL: "http://127.0.0.1:1/mcp"}
	if err := mcp.Validate([]protocol.MCPServer{ok, {Name: "b", Transport: "stdio", Command: "x"}}); err != nil {
		t.Fatalf("valid servers: %v", err)
	}
	for _, bad := range [][]protocol.MCPServer{
		{{Transport: "http", URL: "u"}}, {ok, ok}, {{Name: "a", Transport: "stdio"}},
		{{Name: "a", Transport: "http"}}, {{Name: "a", Transport: "sse", URL: "u"}},
	} {
		if err := mcp.Validate(bad); !errors.Is(err, mcp.ErrBadServer) {
			t.Errorf("Validate(%+v) = %v, want ErrBadServer", bad, err)
		}
	}
}

// An unreachable server does not fail the run: it has no tools, and why
// is written to Stderr (spec/protocol.md §5.5).
func TestUnreachableServersAreLeftOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	var log bytes.Buffer
	r := mcp.Connect(context.Background(), []protocol.MCPServer{
		{Name: "gone", Transport: "http", URL: "http://" + addr + "/mcp"},
		{Name: "nocmd", Transport: "stdio", Command: "/nonexistent/fake-mcp-server"},
	}, mcp.Options{Stderr: &log})
	defer r.Close()
	if specs := r.ToolSpecs(); len(specs) != 0 {
		t.Errorf("tools of unreachable servers: %+v", specs)
	}
	for _, name := range []string{`"gone"`, `"nocmd"`} {
		if !strings.Contains(log.String(), name) {
			t.Errorf("stderr does not say why %s is left out:\n%s", name, log.String())
		}
	}
	if _, err := r.CallTool(context.Background(), "gone", "x", []byte(`{}`)); !errors.Is(err, mcp.ErrUnknownServer) {
		t.Errorf("CallTool on a left-out server: %v, want ErrUnknownServer", err)
	}
}
