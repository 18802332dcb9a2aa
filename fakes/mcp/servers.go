// Package mcp holds the fake MCP servers the harness points a target at
// (feature mcp, CM-MCP-01..11, CM-CAT-05, CM-EXEC-15). They are real MCP
// servers built on the official Go SDK (github.com/modelcontextprotocol/go-sdk)
// and run over stdio (a process the target spawns, see ServeFromEnv and
// cmd/fake-mcp-server) or over streamable HTTP on 127.0.0.1 (StartHTTP).
//
// Two kinds of server exist:
//
//   - KindDocs ("docs"): ordinary tools covering required and optional
//     fields, enums, defaults, nested objects and descriptions (for the JSDoc
//     of mcp/<server>.d.ts), a tool returning isError: true, a tool that
//     throws (a JSON-RPC error), a slow tool, structuredContent with extra
//     result keys, one resource and one prompt.
//   - KindHostile ("hostile"): tool names that are not safe JavaScript
//     identifiers or collide with prototype members and with the namespace's
//     own members (CM-MCP-07, CM-CAT-06).
//
// The server name a target sees is the name the harness gives in run.prepare
// (mcpServers[].name), not the MCP implementation name; a hostile server name
// such as "acme.tools-2" is chosen there.
package mcp

import (
	"errors"
	"fmt"
	"sort"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Kind names one fake server's tool set.
type Kind string

const (
	// KindDocs is the server with ordinary tools, a resource and a prompt.
	KindDocs Kind = "docs"
	// KindHostile is the server whose tool names are unsafe identifiers.
	KindHostile Kind = "hostile"
)

// ErrUnknownKind is returned for a Kind that is not KindDocs or KindHostile.
var ErrUnknownKind = errors.New("unknown fake MCP server kind")

// Kinds lists every server kind, sorted.
func Kinds() []Kind {
	k := []Kind{KindDocs, KindHostile}
	sort.Slice(k, func(i, j int) bool { return k[i] < k[j] })
	return k
}

// Version is the implementation version the fake servers report.
const Version = "1.0.0"

// Server is one fake MCP server: the SDK server plus a count of the tool
// calls it handled, which the tool "server_stats" reports so specs can tell
// whether a call reached the server at all (CM-CAT-05).
type Server struct {
	Kind  Kind
	SDK   *sdk.Server
	calls atomic.Int64
}

// Calls is the number of tools/call requests this server handled.
func (s *Server) Calls() int64 { return s.calls.Load() }

// NewServer builds a fake server of the given kind. Errors: ErrUnknownKind.
func NewServer(kind Kind) (*Server, error) {
	s := &Server{Kind: kind}
	s.SDK = sdk.NewServer(&sdk.Implementation{Name: "fake-mcp-" + string(kind), Version: Version}, nil)
	switch kind {
	case KindDocs:
		addDocs(s)
	case KindHostile:
		addHostile(s)
	default:
		return nil, fmt.Errorf("%w: %q (want one of %v)", ErrUnknownKind, kind, Kinds())
	}
	return s, nil
}
