package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/codemode-conformance/codemode/reference/bridge"
	refmcp "github.com/codemode-conformance/codemode/reference/mcp"
	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// connectMCP connects the run's MCP servers (§5.6) and returns p with their
// tools added to p.Tools, so policy and the catalog treat them like any
// tool. A raw run or one with tools disabled starts no server.
//
// ctx is the runtime's: Close cancels a connect still in flight.
func connectMCP(ctx context.Context, p protocol.PrepareParams) (*refmcp.Run, protocol.PrepareParams) {
	if len(p.MCPServers) == 0 || p.Raw || p.DisableTools {
		return nil, p
	}
	r := refmcp.Connect(ctx, p.MCPServers, refmcp.Options{})
	p.Tools = append(slices.Clone(p.Tools), r.ToolSpecs()...)
	return r, p
}

// closeMCP stops the run's MCP servers: no stdio child outlives run.end.
func (r *agentRun) closeMCP() {
	if r.mcp == nil {
		return
	}
	if err := r.mcp.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "codemode-reference: run %q: %v\n", r.id, err)
	}
}

// mcpTable renders the run's MCP table from its catalog: the visible
// servers and tools with their identifiers and the virtual declaration
// files. Nil when no MCP tool is visible.
func mcpTable(r *agentRun) (*prelude.MCPBoot, []refmcp.Server) {
	if r.mcp == nil || r.catalog() == nil {
		return nil, nil
	}
	var entries []refmcp.Entry
	for _, t := range r.catalog().Tools {
		if t.Spec.Source != protocol.SourceMCP {
			continue
		}
		mt, ok := r.mcp.Tool(t.Spec.Owner, t.Spec.Name)
		if !ok {
			continue // a tools[] entry with source mcp: catalogued only (§5.4)
		}
		e := refmcp.Entry{ID: t.ID, Spec: t.Spec}
		if mt.OutputSchema != nil {
			e.OutputSchema, _ = json.Marshal(mt.OutputSchema)
		}
		entries = append(entries, e)
	}
	plan := refmcp.Plan(entries)
	if len(plan) == 0 {
		return nil, nil
	}
	b := &prelude.MCPBoot{}
	for _, s := range plan {
		ps := prelude.MCPServer{Name: s.Ident, Server: s.Name, Path: s.Path}
		for _, t := range s.Tools {
			ps.Tools = append(ps.Tools, prelude.MCPTool{Name: t.Ident, MCPName: t.Name, ID: t.ID, Description: t.Description,
				InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Header: refmcp.ToolHeader(s, t)})
		}
		b.Servers = append(b.Servers, ps)
	}
	for _, f := range refmcp.Render(plan) {
		b.Files = append(b.Files, prelude.MCPFile{Path: f.Path, Server: f.Server, Bytes: len(f.Text), Text: f.Text})
	}
	return b, plan
}

// startMCP validates one MCP bridge request on the host (the guest is not
// trusted to name only visible tools) and launches it through the same path
// as tools.call: in-flight accounting, maxPendingToolCalls, the bridge size
// limit, suspension and telemetry (CM-MCP-01, CM-EXEC-15), and for a tool
// call the before_tool_call hook, approvals and the trajectory (CM-NEST-02,
// CM-NEST-03, CM-NEST-07: MCP entries share them, 000 [MCP]). It returns an
// immediate rejection, or a result that fails the cell.
func (s *step) startMCP(q prelude.Request) (*prelude.Delivery, result.Result, bool) {
	run := s.c.run
	start, d := s.mcpCall(q)
	if d != nil {
		return d, result.Result{}, false
	}
	if s.c.calls.Queueing() { // bridge/queue.go: beyond maxPendingToolCalls an MCP request waits like any call (CM-NEST-05)
		s.c.calls.Enqueue(bridge.Queued{Req: q, MCP: true, Parent: s.parent, Start: func() { start(s) }})
		return nil, result.Result{}, false
	}
	if int64(s.inflightCount()) >= run.cfg.MaxPendingToolCalls {
		return nil, s.limit(result.CodeTooManyPendingToolCalls,
			fmt.Sprintf("more than maxPendingToolCalls (%d) nested tool calls in flight; await smaller batches", run.cfg.MaxPendingToolCalls)), true
	}
	start(s)
	return nil, result.Result{}, false
}

// mcpCall resolves one MCP bridge request against the run's current catalog
// and MCP servers: the function that launches it, or the guest's rejection
// (an unknown or no longer visible tool or server, an oversized input). A
// queued request is resolved again when it is sent (queueSender.Resolve), so a
// run.update between the two applies to it (CM-NEST-16). It takes no lock.
func (s *step) mcpCall(q prelude.Request) (func(*step), *prelude.Delivery) {
	run := s.c.run
	reject := func(msg string) (func(*step), *prelude.Delivery) {
		d := bridge.ErrorDelivery(q.ID, "ToolError", msg, string(result.CodeInvalidInput), nil)
		return nil, &d
	}
	var (
		toolID string
		invoke func(ctx context.Context, input json.RawMessage) (json.RawMessage, error)
		what   map[string]string
		gated  *protocol.InvokeParams // an MCP tool call: hooked, approved and traced like any nested call
	)
	switch q.Op {
	case bridge.OpMCPTool:
		t, ok := run.catalog().Lookup(q.Tool)
		if ok && run.mcp != nil {
			_, ok = run.mcp.Tool(t.Spec.Owner, t.Spec.Name)
		}
		if !ok || t.Spec.Source != protocol.SourceMCP || run.mcp == nil {
			return reject(fmt.Sprintf("Unknown MCP tool id %q. Read API.list(\"mcp\") for the visible MCP tools.", q.Tool))
		}
		toolID, what = t.ID, map[string]string{"server": t.Spec.Owner, "tool": t.Spec.Name}
		gated = &protocol.InvokeParams{Run: run.id, ToolCallID: s.c.callID(q.ID), ParentToolCallID: s.parent,
			CatalogID: t.ID, Tool: t.Spec.Name, Source: t.Spec.Source, Owner: t.Spec.Owner, Context: run.ctx}
		invoke = func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			return run.mcp.CallTool(ctx, t.Spec.Owner, t.Spec.Name, in)
		}
	case bridge.OpMCPResource, bridge.OpMCPPrompt:
		method := ":resources/read"
		if q.Op == bridge.OpMCPPrompt {
			method = ":prompts/get"
		}
		server, ok := strings.CutPrefix(q.Tool, "mcp:")
		if ok {
			server, ok = strings.CutSuffix(server, method)
		}
		if !ok || !s.visibleServer(server) {
			return reject(fmt.Sprintf("Unknown MCP server in %q.", q.Tool))
		}
		toolID, what = q.Tool, map[string]string{"server": server, "method": method[1:]}
		invoke = func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			if q.Op == bridge.OpMCPResource {
				var r struct {
					URI string `json:"uri"`
				}
				if err := json.Unmarshal(in, &r); err != nil {
					return nil, &ToolError{Message: "resources.read({uri}) takes an object with a string uri"}
				}
				return run.mcp.ReadResource(ctx, server, r.URI)
			}
			var g struct {
				Name      string            `json:"name"`
				Arguments map[string]string `json:"arguments"`
			}
			if err := json.Unmarshal(in, &g); err != nil {
				return nil, &ToolError{Message: "prompts.get({name, arguments}) takes a string name and string arguments"}
			}
			return run.mcp.GetPrompt(ctx, server, g.Name, g.Arguments)
		}
	}
	if d, over := bridge.CheckInput(q.ID, q.Input, run.cfg); over { // CM-LIM-07
		return nil, &d
	}
	input := bridge.WellFormedInput(q.Input)
	call := func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		v, err := invoke(ctx, in)
		if err != nil {
			if _, ok := err.(*ToolError); ok {
				return nil, err
			}
			return nil, mcpToolError(err, what)
		}
		return v, nil
	}
	start := func(s *step) {
		s.launch(q.ID, toolID, q.Op == bridge.OpMCPTool, func(ctx context.Context) (json.RawMessage, error) {
			if gated == nil { // resources/read and prompts/get are no catalog tools
				return call(ctx, input)
			}
			p := *gated
			p.Input = input
			s.c.traceNested(p) // trajectory.go: CM-NEST-07
			if err := s.gateCall(ctx, &p); err != nil {
				s.c.traceSettled(ctx, p, err)
				return nil, err
			}
			s.c.noteExecuted(p.ToolCallID) // activity.go: CM-NEST-19
			v, err := call(ctx, p.Input)
			s.c.traceSettled(ctx, p, err)
			return v, err
		})
	}
	return start, nil
}

// mcpToolError is the guest's rejection for a failed MCP request (CM-MCP-08):
// {name: "ToolError", code: "nested_tool_failed", message: the server's
// message, data: {server, tool | method, mcpCode?}}.
func mcpToolError(err error, what map[string]string) *ToolError {
	f := refmcp.FailureOf(err)
	data := map[string]any{}
	for k, v := range what {
		data[k] = v
	}
	if f.RPC {
		data["mcpCode"] = f.Code
	}
	b, _ := json.Marshal(data)
	return &ToolError{Message: f.Message, Data: b}
}

func (s *step) visibleServer(name string) bool {
	for _, sv := range s.c.run.mcpServers {
		if sv.Name == name {
			return true
		}
	}
	return false
}
