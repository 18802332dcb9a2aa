package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"

	refmcp "github.com/codemode-conformance/codemode/reference/mcp"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/creachadair/jrpc2"
)

// serve --listen binds loopback only unless --allow-remote and a token are
// both given (issue 28 N11).
func TestListenCheckRefusesRemoteWithoutFlagAndToken(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:7070", "127.1.2.3:0", "[::1]:7070", "localhost:7070"} {
		if err := CheckListen(addr, false, false); err != nil {
			t.Errorf("CheckListen(%q) = %v, want nil (loopback)", addr, err)
		}
	}
	for _, addr := range []string{":7070", "0.0.0.0:7070", "[::]:7070", "192.168.1.5:7070", "example.com:7070", "nonsense"} {
		err := CheckListen(addr, false, false)
		if !errors.Is(err, ErrRemoteListen) || !strings.Contains(err.Error(), "--allow-remote") {
			t.Errorf("CheckListen(%q, no flag) = %v, want ErrRemoteListen naming --allow-remote", addr, err)
		}
		err = CheckListen(addr, true, false)
		if !errors.Is(err, ErrRemoteListen) || !strings.Contains(err.Error(), "token") {
			t.Errorf("CheckListen(%q, flag, no token) = %v, want ErrRemoteListen naming the token", addr, err)
		}
		if err := CheckListen(addr, true, true); err != nil {
			t.Errorf("CheckListen(%q, flag, token) = %v, want nil", addr, err)
		}
	}
}

// tokenSession serves one connection behind RequireToken and sends first
// as its first line; it returns the first answer line.
func tokenSession(t *testing.T, first string) map[string]any {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	served := make(chan error, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			served <- err
			return
		}
		r, err := RequireToken(conn, "s3cret")
		if err != nil {
			conn.Close()
			served <- err
			return
		}
		served <- Serve(context.Background(), r, conn, Options{Unavailable: true})
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(first + "\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if err != nil {
		t.Fatalf("no answer to %s: %v", first, err)
	}
	var answer map[string]any
	if err := json.Unmarshal(line, &answer); err != nil {
		t.Fatalf("answer %q is not JSON: %v", line, err)
	}
	conn.Close()
	<-served
	return answer
}

func TestRequireTokenAdmitsOnlyTheToken(t *testing.T) {
	good := tokenSession(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1","harness":{"name":"h","version":"0"},"token":"s3cret"}}`)
	if good["result"] == nil {
		t.Errorf("initialize with the token: %v, want a result", good)
	}
	for name, first := range map[string]string{
		"wrong token":  `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1","token":"guess"}}`,
		"no token":     `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1"}}`,
		"other method": `{"jsonrpc":"2.0","id":1,"method":"run.prepare","params":{"token":"s3cret"}}`,
		"not JSON":     `hello`,
	} {
		bad := tokenSession(t, first)
		e, _ := bad["error"].(map[string]any)
		if e == nil || e["code"] != float64(-32600) || !strings.Contains(e["message"].(string), "token") {
			t.Errorf("%s: answer %v, want error -32600 naming the token", name, bad)
		}
	}
}

// Under serve --listen without --mcp-allow, a peer's MCP server fails
// run.prepare with -32602 naming the server and the flag (issue 28 N11).
func TestPrepareRefusesAnMCPServerOffTheAllowlist(t *testing.T) {
	refmcp.SetPolicy(refmcp.Policy{Allow: []string{}})
	t.Cleanup(func() { refmcp.SetPolicy(refmcp.Policy{}) })
	c := serve(t)
	p := map[string]any{"run": "r1", "agentId": "a", "sessionId": "s", "sessionKey": "k", "senderId": "x", "channel": "c",
		"tools": []any{}, "mcpServers": []any{map[string]any{"name": "sh", "transport": "stdio", "command": "/bin/sh"}}}
	_, err := c.Call(context.Background(), protocol.MethodRunPrepare, p)
	var je *jrpc2.Error
	if !errors.As(err, &je) || je.Code != jrpc2.InvalidParams || !strings.Contains(je.Message, "--mcp-allow") || !strings.Contains(je.Message, `"sh"`) {
		t.Errorf("run.prepare with a stdio server off the allowlist: %v, want -32602 naming \"sh\" and --mcp-allow", err)
	}
}
