package mcp

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Errors of the process's MCP policy, matched with errors.Is.
var (
	// ErrNotAllowed: an mcpServers entry's command or URL is not on the
	// process's allowlist (serve --mcp-allow); run.prepare fails -32602.
	ErrNotAllowed = errors.New("MCP server not allowed")
	// ErrTooManyProcesses: the process's cap on MCP stdio children (serve
	// --max-mcp-processes) stayed full for the whole ConnectTimeout; the
	// server is left out of the run (§5.6) and why is written to Stderr.
	ErrTooManyProcesses = errors.New("too many MCP server processes")
)

// DefaultMaxProcesses is serve's default --max-mcp-processes.
const DefaultMaxProcesses = 16

// Policy bounds what a peer's mcpServers can make this process do: which
// commands it runs and URLs it fetches, and how many children it keeps.
type Policy struct {
	// Allow lists what may be connected to; nil allows everything, an
	// empty non-nil list nothing. An entry beginning with http:// or
	// https:// is a URL prefix; "*" allows every entry; any other entry is a
	// glob (path.Match) on a stdio command exactly as run.prepare gives it
	// (so "/usr/local/bin/*" allows the commands of that directory).
	Allow []string
	// MaxProcesses bounds stdio children alive at once over the process
	// (0: no cap). A run's child holds its place until the run's Close; a
	// connect that finds the cap full waits for a place within
	// ConnectTimeout.
	MaxProcesses int
}

var (
	policyMu sync.Mutex
	policy   Policy
	procs    chan struct{} // one token per live child; nil: no cap
)

// SetPolicy sets the process's MCP policy, once at start-up (serve's
// flags). Children already started keep no place in the new cap.
func SetPolicy(p Policy) {
	policyMu.Lock()
	defer policyMu.Unlock()
	policy = p
	procs = nil
	if p.MaxProcesses > 0 {
		procs = make(chan struct{}, p.MaxProcesses)
	}
}

func currentPolicy() (Policy, chan struct{}) {
	policyMu.Lock()
	defer policyMu.Unlock()
	return policy, procs
}

// Allowed checks s against the allowlist; the error wraps ErrNotAllowed and
// names the entry, its command or URL and the flag.
func Allowed(i int, s protocol.MCPServer) error {
	p, _ := currentPolicy()
	if p.Allow == nil {
		return nil
	}
	target := s.Command
	if s.Transport == protocol.MCPTransportHTTP {
		target = s.URL
	}
	for _, a := range p.Allow {
		isURL := strings.HasPrefix(a, "http://") || strings.HasPrefix(a, "https://")
		switch {
		case a == "*":
			return nil
		case isURL && s.Transport == protocol.MCPTransportHTTP && strings.HasPrefix(s.URL, a):
			return nil
		case !isURL && s.Transport == protocol.MCPTransportStdio:
			if ok, _ := path.Match(a, s.Command); ok {
				return nil
			}
		}
	}
	if len(p.Allow) == 0 {
		return fmt.Errorf("%w: mcpServers[%d] (%q): %s %q: this server allows no MCP servers (serve --listen without --mcp-allow)", ErrNotAllowed, i, s.Name, s.Transport, target)
	}
	return fmt.Errorf("%w: mcpServers[%d] (%q): %s %q matches no --mcp-allow entry (%s)", ErrNotAllowed, i, s.Name, s.Transport, target, strings.Join(p.Allow, ","))
}

// acquireProcess takes a place for one stdio child, waiting within ctx
// while the cap is full. The returned release is idempotent.
func acquireProcess(ctx context.Context) (release func(), err error) {
	p, ch := currentPolicy()
	if ch == nil {
		return func() {}, nil
	}
	select {
	case ch <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %d are running (the cap is %d, --max-mcp-processes) and none ended within the connect timeout: %w", ErrTooManyProcesses, len(ch), p.MaxProcesses, ctx.Err())
	}
	var once sync.Once
	return func() { once.Do(func() { <-ch }) }, nil
}

// ProcessesRunning is how many stdio children hold a place in the cap.
func ProcessesRunning() int {
	_, ch := currentPolicy()
	return len(ch)
}
