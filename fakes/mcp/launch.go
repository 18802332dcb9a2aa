package mcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// EnvStdio is the environment variable that turns any binary calling
// ServeFromEnv into a fake stdio MCP server of the Kind it names. The harness
// binaries (the conformance CLI and the suites' test binaries) call
// ServeFromEnv first thing, so StdioLaunch can point a target at
// os.Executable() without a build step.
const EnvStdio = "CODEMODE_FAKE_MCP_SERVER"

// EnvPIDFile names a file the stdio server writes its process id to when it
// starts, so a spec can check that the process is gone after run.end.
const EnvPIDFile = "CODEMODE_FAKE_MCP_PIDFILE"

// ServeFromEnv serves a fake MCP server over stdin/stdout and exits the
// process when EnvStdio is set; otherwise it returns at once. The process
// exits 0 when the client closes stdin, 2 on a bad kind or a failed session.
func ServeFromEnv() {
	kind := os.Getenv(EnvStdio)
	if kind == "" {
		return
	}
	if err := ServeStdio(context.Background(), Kind(kind)); err != nil {
		fmt.Fprintln(os.Stderr, "fake-mcp-server:", err)
		os.Exit(2)
	}
	os.Exit(0)
}

// ServeStdio serves one fake server over os.Stdin/os.Stdout until the client
// closes stdin or ctx ends. It writes the pid file named by EnvPIDFile first.
// Errors: ErrUnknownKind, or the session's failure.
func ServeStdio(ctx context.Context, kind Kind) error {
	s, err := NewServer(kind)
	if err != nil {
		return err
	}
	if f := os.Getenv(EnvPIDFile); f != "" {
		if err := os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
			return err
		}
	}
	err = s.SDK.Run(ctx, &sdk.StdioTransport{})
	if err == nil || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// StdioLaunch is the run.prepare entry that makes a target start a fake
// stdio server of the given kind under the given server name by re-executing
// the current binary, which must call ServeFromEnv at start-up. Usable by
// targets that run on this host (builtin, exec:); a container: target cannot
// run the host's binary and gets an HTTP server instead.
func StdioLaunch(name string, kind Kind) (protocol.MCPServer, error) {
	exe, err := os.Executable()
	if err != nil {
		return protocol.MCPServer{}, fmt.Errorf("fake MCP stdio launch: %w", err)
	}
	return protocol.MCPServer{Name: name, Transport: protocol.MCPTransportStdio, Command: exe,
		Env: map[string]string{EnvStdio: string(kind)}}, nil
}

// HTTPServer is a fake server listening for the MCP streamable HTTP
// transport.
type HTTPServer struct {
	*Server
	// URL is the MCP endpoint, http://<host>:<port>/mcp.
	URL  string
	http *http.Server
}

// StartHTTP starts a fake server of the given kind on addr (host:port; ""
// means 127.0.0.1:0, a free loopback port) serving the streamable HTTP
// transport at /mcp. Close stops it. Errors: ErrUnknownKind, listen errors.
func StartHTTP(kind Kind, addr string) (*HTTPServer, error) {
	s, err := NewServer(kind)
	if err != nil {
		return nil, err
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("fake MCP http server: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.SDK }, nil))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return &HTTPServer{Server: s, URL: "http://" + ln.Addr().String() + "/mcp", http: hs}, nil
}

// Launch is the run.prepare entry for this server under the given name.
func (h *HTTPServer) Launch(name string) protocol.MCPServer {
	return protocol.MCPServer{Name: name, Transport: protocol.MCPTransportHTTP, URL: h.URL}
}

// Close stops the server and drops its sessions.
func (h *HTTPServer) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := h.http.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return h.http.Close()
	}
	return err
}
