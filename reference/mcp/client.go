// Package mcp is the reference's MCP side (feature mcp, spec/protocol.md §5.6
// and §12.10): one MCP client per run on the official Go SDK, connected to
// the servers of run.prepare's mcpServers over stdio or streamable HTTP; the
// renaming of server and tool names into safe identifiers; the virtual
// declaration files mcp/index.d.ts and mcp/<server>.d.ts; and the one place
// that decides the shape of an MCP result in the guest.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Errors of a run's MCP client, matched with errors.Is.
var (
	// ErrBadServer: an mcpServers entry is malformed (run.prepare -32602).
	ErrBadServer = errors.New("bad mcpServers entry")
	// ErrUnknownServer: a call names a server the run is not connected to.
	ErrUnknownServer = errors.New("unknown MCP server")
	// ErrServer: the server answered a request with an error, or the
	// connection failed; the message is the server's.
	ErrServer = errors.New("MCP server error")
)

// ConnectTimeout bounds starting, connecting to and listing one server.
const ConnectTimeout = 10 * time.Second

// TerminateGrace is how long Close waits for a stdio server to exit after
// its stdin is closed, and again after SIGTERM, before it kills it.
const TerminateGrace = 2 * time.Second

// Validate checks mcpServers as protocol.md §5.6 requires: a non-empty,
// unique name; transport stdio with a command, or http with a url. Errors
// wrap ErrBadServer.
func Validate(servers []protocol.MCPServer) error {
	if len(servers) > MaxServers {
		return fmt.Errorf("%w: %d mcpServers, at most %d per run", ErrBadServer, len(servers), MaxServers)
	}
	seen := map[string]bool{}
	for i, s := range servers {
		switch {
		case s.Name == "":
			return fmt.Errorf("%w: mcpServers[%d] has an empty name", ErrBadServer, i)
		case seen[s.Name]:
			return fmt.Errorf("%w: mcpServers[%d]: duplicate name %q", ErrBadServer, i, s.Name)
		case s.Transport == protocol.MCPTransportStdio && s.Command == "":
			return fmt.Errorf("%w: mcpServers[%d] (%q): transport stdio needs a command", ErrBadServer, i, s.Name)
		case s.Transport == protocol.MCPTransportHTTP && s.URL == "":
			return fmt.Errorf("%w: mcpServers[%d] (%q): transport http needs a url", ErrBadServer, i, s.Name)
		case s.Transport != protocol.MCPTransportStdio && s.Transport != protocol.MCPTransportHTTP:
			return fmt.Errorf("%w: mcpServers[%d] (%q): unknown transport %q (want stdio or http)", ErrBadServer, i, s.Name, s.Transport)
		}
		if err := Allowed(i, s); err != nil { // limits.go: serve --mcp-allow
			return err
		}
		seen[s.Name] = true
	}
	return nil
}

// MaxServers is how many MCP servers one run may list (§5.6): each stdio
// entry is a child process started at once.
const MaxServers = 16

// Options configure Connect.
type Options struct {
	// Stderr receives the stderr of stdio servers and the reasons a server
	// could not be reached (default os.Stderr).
	Stderr io.Writer
}

// Run is the MCP client of one run: a session per reachable server. Safe
// for concurrent use.
type Run struct {
	mu       sync.Mutex
	sessions map[string]*sdk.ClientSession // by server name
	tools    map[string]map[string]*sdk.Tool
	closed   bool
	released []func() // the places of its stdio children in the process cap (limits.go)
}

// Connect starts or connects to every server concurrently and lists its
// tools. A server that cannot be reached within ConnectTimeout is left out,
// and why is written to opts.Stderr (§5.6: it does not fail the run).
func Connect(ctx context.Context, servers []protocol.MCPServer, opts Options) *Run {
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	// Connects and every stdio child write to it concurrently (a file is
	// handed to the children as is).
	if _, isFile := opts.Stderr.(*os.File); !isFile {
		opts.Stderr = &lockedWriter{w: opts.Stderr}
	}
	r := &Run{sessions: map[string]*sdk.ClientSession{}, tools: map[string]map[string]*sdk.Tool{}}
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs, tools, release, err := connect(ctx, s, opts)
			if err != nil {
				fmt.Fprintf(opts.Stderr, "codemode-reference: MCP server %q is not reachable and has no tools in this run: %v\n", s.Name, err)
				return
			}
			byName := map[string]*sdk.Tool{}
			for _, t := range tools {
				byName[t.Name] = t
			}
			r.mu.Lock()
			r.sessions[s.Name] = cs
			r.tools[s.Name] = byName
			r.released = append(r.released, release)
			r.mu.Unlock()
		}()
	}
	wg.Wait()
	return r
}

func connect(ctx context.Context, s protocol.MCPServer, opts Options) (_ *sdk.ClientSession, _ []*sdk.Tool, release func(), err error) {
	ctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	defer cancel()
	release = func() {}
	defer func() {
		if err != nil {
			release()
		}
	}()
	var t sdk.Transport
	switch s.Transport {
	case protocol.MCPTransportStdio:
		if release, err = acquireProcess(ctx); err != nil { // limits.go: serve --max-mcp-processes
			return nil, nil, func() {}, err
		}
		// Not CommandContext: the child lives as long as the run, not as
		// long as this connect call.
		cmd := exec.Command(s.Command, s.Args...)
		cmd.Env = os.Environ()
		for k, v := range s.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Stderr = opts.Stderr
		cmd.WaitDelay = TerminateGrace // a grandchild holding stderr cannot hold Close
		dieWithParent(cmd)             // no child outlives the reference process (pdeathsig_linux.go)
		t = &sdk.CommandTransport{Command: cmd, TerminateDuration: TerminateGrace}
	case protocol.MCPTransportHTTP:
		t = &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: &http.Client{}, DisableStandaloneSSE: true, MaxRetries: -1}
	default:
		return nil, nil, release, fmt.Errorf("%w: unknown transport %q", ErrBadServer, s.Transport)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "codemode-reference", Version: "0.1.0"}, nil)
	cs, err := c.Connect(ctx, t, nil)
	if err != nil {
		if ct, ok := t.(*sdk.CommandTransport); ok && ct.Command.Process != nil {
			_ = ct.Command.Process.Kill() // a child that never finished the handshake must not linger
			go func() { _ = ct.Command.Wait() }()
		}
		return nil, nil, release, err
	}
	var tools []*sdk.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			_ = cs.Close()
			return nil, nil, release, fmt.Errorf("listing tools: %w", err)
		}
		tools = append(tools, t)
	}
	return cs, tools, release, nil
}

// ToolSpecs are the catalog entries of every reachable server's tools:
// source mcp, owner the server name, the tool's name, description and input
// schema (§5.6). Sorted by server and tool name.
func (r *Run) ToolSpecs() []protocol.ToolSpec {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []protocol.ToolSpec
	for server, tools := range r.tools {
		for _, t := range tools {
			schema, err := json.Marshal(t.InputSchema)
			if err != nil || string(schema) == "null" {
				schema = []byte(`{"type":"object"}`)
			}
			out = append(out, protocol.ToolSpec{Name: t.Name, Label: t.Title, Description: t.Description,
				Parameters: schema, Source: protocol.SourceMCP, Owner: server})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Owner != out[j].Owner {
			return out[i].Owner < out[j].Owner
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Tool returns the listed tool of a server, for its output schema.
func (r *Run) Tool(server, tool string) (*sdk.Tool, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.tools[server][tool]
	return t, ok
}

func (r *Run) session(server string) (*sdk.ClientSession, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cs, ok := r.sessions[server]
	if !ok || r.closed {
		return nil, fmt.Errorf("%w %q", ErrUnknownServer, server)
	}
	return cs, nil
}

// CallTool calls tool on server with input (a JSON object) and returns the
// result as the guest receives it (GuestResult). Errors: ErrUnknownServer;
// ErrServer wrapping the server's or the connection's failure.
func (r *Run) CallTool(ctx context.Context, server, tool string, input json.RawMessage) (json.RawMessage, error) {
	cs, err := r.session(server)
	if err != nil {
		return nil, err
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: input})
	if err != nil {
		return nil, serverError(err)
	}
	return GuestResult(res)
}

// ReadResource reads uri from server (resources/read) and returns the
// result's JSON ({contents: [...]}). Errors as CallTool.
func (r *Run) ReadResource(ctx context.Context, server, uri string) (json.RawMessage, error) {
	cs, err := r.session(server)
	if err != nil {
		return nil, err
	}
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, serverError(err)
	}
	return json.Marshal(res)
}

// GetPrompt gets prompt name with arguments from server (prompts/get) and
// returns the result's JSON ({description?, messages}). Errors as CallTool.
func (r *Run) GetPrompt(ctx context.Context, server, name string, args map[string]string) (json.RawMessage, error) {
	cs, err := r.session(server)
	if err != nil {
		return nil, err
	}
	res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return nil, serverError(err)
	}
	return json.Marshal(res)
}

func serverError(err error) error {
	return fmt.Errorf("%w: %w", ErrServer, err)
}

// Close ends every session: a stdio server's stdin is closed and the
// process is waited for (terminated, then killed, after TerminateGrace), so
// no child outlives Close. Idempotent.
func (r *Run) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	sessions := r.sessions
	released := r.released
	r.mu.Unlock()
	defer func() { // after every child was waited for
		for _, release := range released {
			release()
		}
	}()
	var wg sync.WaitGroup
	errs := make([]error, 0, len(sessions))
	var emu sync.Mutex
	for name, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := closeBounded(cs); err != nil && !isExitError(err) && !errors.Is(err, syscall.ECONNREFUSED) { // refused: an HTTP server already gone, nothing left to close
				emu.Lock()
				errs = append(errs, fmt.Errorf("closing MCP server %q: %w", name, err))
				emu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// closeWait bounds one session's Close: a stdio child is killed well within
// it (closed stdin, then SIGTERM, then SIGKILL, TerminateGrace apart); an
// HTTP server that never answers the session's DELETE is given up on.
const closeWait = 4 * TerminateGrace

func closeBounded(cs *sdk.ClientSession) error {
	done := make(chan error, 1)
	go func() { done <- cs.Close() }()
	select {
	case err := <-done:
		return err
	case <-time.After(closeWait):
		return fmt.Errorf("the session did not close within %s", closeWait)
	}
}

// isExitError: a stdio server that exits non-zero (or by SIGTERM) after
// its stdin closed is stopped all the same.
func isExitError(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee)
}

// Failure is a failed MCP request as the guest learns of it: the server's
// own message and, when the server answered with a JSON-RPC error, its code
// (RPC false: a transport failure or a cancelled call).
type Failure struct {
	Message string
	RPC     bool
	Code    int64
}

// FailureOf describes err, an error of CallTool, ReadResource or GetPrompt.
func FailureOf(err error) Failure {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return Failure{Message: we.Message, RPC: true, Code: we.Code}
	}
	if w, ok := err.(interface{ Unwrap() []error }); ok && errors.Is(err, ErrServer) && len(w.Unwrap()) == 2 {
		return Failure{Message: w.Unwrap()[1].Error()}
	}
	return Failure{Message: err.Error()}
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
