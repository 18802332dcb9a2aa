package framework

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	fakemcp "github.com/codemode-conformance/codemode/fakes/mcp"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// The fake MCP servers of a run (feature mcp, protocol.md §3 run.prepare
// mcpServers): the harness starts an HTTP server on 127.0.0.1 for the spec
// and stops it after run.end, or gives the target the command line of a
// stdio server (this binary, re-executed; see the init below), which the
// target starts and must stop at run.end.

// Every binary that links the framework (the conformance CLI, the suites'
// test binaries) can be re-executed as a fake stdio MCP server: with
// fakemcp.EnvStdio set it serves MCP on stdin/stdout and exits here, before
// main or TestMain, so a stdio launch needs no build step.
func init() { fakemcp.ServeFromEnv() }

// SurfaceMCPServers is the run.prepare member a target declares not drivable
// (initialize notDrivable[].surface) when it cannot start or reach MCP
// servers given by the harness: every spec that uses one is skipped with its
// reason.
const SurfaceMCPServers = "mcpServers"

// MCPTransports are the transports every MCP spec runs over, in order.
var MCPTransports = []string{protocol.MCPTransportStdio, protocol.MCPTransportHTTP}

// MCPServer asks for one fake MCP server in a run (RunOptions.MCPServers):
// Name is the server name the guest sees (MCP.<Name>, mcp/<Name>.d.ts),
// Kind the fake's tool set, Transport protocol.MCPTransportStdio or
// protocol.MCPTransportHTTP.
type MCPServer struct {
	Name      string
	Kind      fakemcp.Kind
	Transport string
}

// StartedMCP is one fake MCP server of a run, as the harness started or
// launched it.
type StartedMCP struct {
	MCPServer
	// Launch is the run.prepare entry the target got.
	Launch protocol.MCPServer
	// HTTP is the in-process server of an HTTP launch (nil for stdio): the
	// harness sees every tool call it handles (Calls).
	HTTP *fakemcp.HTTPServer
	// pidFile is where a stdio server writes its process id when it starts.
	pidFile string
}

// Calls is the number of tools/call requests an HTTP server handled so far;
// ok is false for a stdio server (the harness does not see its calls; its
// server_stats tool reports them).
func (s *StartedMCP) Calls() (n int64, ok bool) {
	if s.HTTP == nil {
		return 0, false
	}
	return s.HTTP.Calls(), true
}

// PID is the process id a stdio server wrote when it started; ok is false
// for an HTTP server or a stdio server that never started.
func (s *StartedMCP) PID() (pid int, ok bool) {
	if s.pidFile == "" {
		return 0, false
	}
	b, err := os.ReadFile(s.pidFile)
	if err != nil {
		return 0, false
	}
	pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
	return pid, err == nil && pid > 0
}

// ProcessState reports what the process table holds for pid: "gone" (no such
// process), "zombie" (exited, not yet reaped by its parent) or "running"
// (any other state), read from /proc where there is one and from kill(pid, 0)
// elsewhere (which cannot tell a zombie from a live process).
func ProcessState(pid int) string {
	if b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat")); err == nil {
		// pid (comm) state …: comm may hold spaces and parentheses.
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
			if s[i+2] == 'Z' || s[i+2] == 'X' {
				return "zombie"
			}
			return "running"
		}
	} else if os.IsNotExist(err) {
		if _, statErr := os.Stat("/proc/self/stat"); statErr == nil {
			return "gone"
		}
	}
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return "gone"
	}
	return "running"
}

// RequireMCPTransport skips the running spec when the target cannot use the
// transport: it declared mcpServers not drivable, or it is a container:
// target (the stdio server is a binary of this host, and the HTTP server
// listens on this host's loopback, which a container does not share).
func RequireMCPTransport(transport string) {
	ginkgo.GinkgoHelper()
	RequireDrivable(SurfaceMCPServers)
	if strings.HasPrefix(current.Target, "container:") {
		ginkgo.Skip(fmt.Sprintf("%sMCP servers over %s: a container: target cannot start this host's binary or reach its 127.0.0.1 (requirement %s)",
			protocol.NotDrivablePrefix, transport, currentRequirement()))
	}
}

// startMCPServers starts or launches the servers a run asks for and returns
// the run.prepare entries. HTTP servers stop when the spec ends, after the
// run's run.end (cleanups run last-registered first, and NewRun registers
// run.end after this).
func startMCPServers(want []MCPServer) ([]protocol.MCPServer, map[string]*StartedMCP) {
	ginkgo.GinkgoHelper()
	if len(want) == 0 {
		return nil, nil
	}
	var launches []protocol.MCPServer
	started := map[string]*StartedMCP{}
	for _, w := range want {
		RequireMCPTransport(w.Transport)
		s := &StartedMCP{MCPServer: w}
		switch w.Transport {
		case protocol.MCPTransportHTTP:
			h, err := fakemcp.StartHTTP(w.Kind, "")
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the harness could not start the fake MCP server %q over HTTP", w.Name)
			ginkgo.DeferCleanup(func() { _ = h.Close() }) // a spec may have stopped it already (CM-MCP-08)
			s.HTTP, s.Launch = h, h.Launch(w.Name)
		case protocol.MCPTransportStdio:
			l, err := fakemcp.StdioLaunch(w.Name, w.Kind)
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the harness could not name a stdio launch of the fake MCP server %q", w.Name)
			s.pidFile = filepath.Join(ginkgo.GinkgoT().TempDir(), "mcp-"+strconv.Itoa(len(launches))+".pid")
			if l.Env == nil {
				l.Env = map[string]string{}
			}
			l.Env[fakemcp.EnvPIDFile] = s.pidFile
			s.Launch = l
		default:
			ginkgo.Fail(fmt.Sprintf("framework: unknown MCP transport %q for server %q", w.Transport, w.Name))
		}
		launches = append(launches, s.Launch)
		started[w.Name] = s
	}
	return launches, started
}
