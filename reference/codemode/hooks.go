package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/codemode-conformance/codemode/reference/bridge"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// Gatekeeper asks the host's before_tool_call hooks and approval policy
// (hook.beforeToolCall and approval.request, spec/protocol.md §4.1). An
// Invoker that also implements it serves features hooks and approvals.
type Gatekeeper interface {
	BeforeToolCall(ctx context.Context, p protocol.HookParams) (protocol.HookResult, error)
	RequestApproval(ctx context.Context, p protocol.ApprovalParams) (protocol.ApprovalResult, error)
}

// gating is what run.prepare's hooks and approvals members ask of one run.
type gating struct {
	hooks     bool
	approvals []string // tool names whose nested calls need approval
	// messageWrite and agentEnd: hook.beforeMessageWrite and hook.agentEnd
	// (feature nested-activity, activity.go).
	messageWrite, agentEnd bool
}

// gatingOf reads run.prepare's hooks and approvals members, each honoured
// only when the profile has its feature.
func (rt *Runtime) gatingOf(p protocol.PrepareParams) gating {
	var g gating
	if p.Hooks != nil && rt.opts.HasFeature("hooks") {
		g.hooks = p.Hooks.BeforeToolCall
	}
	if p.Hooks != nil && rt.opts.HasFeature("nested-activity") {
		g.messageWrite, g.agentEnd = p.Hooks.BeforeMessageWrite, p.Hooks.AgentEnd
	}
	if p.Approvals != nil && rt.opts.HasFeature("approvals") {
		g.approvals = slices.Clone(p.Approvals.Tools)
	}
	return g
}

// approvalRepoll is how long the runtime waits before asking again about a
// pending approval the harness answered pending without holding the answer.
const approvalRepoll = 100 * time.Millisecond

// gatekeeper is the Invoker's Gatekeeper (wrapped by Options.WrapGates), or
// nil when the invoker has none.
func (rt *Runtime) gatekeeper() Gatekeeper {
	g, _ := rt.inv.(Gatekeeper)
	if g != nil && rt.opts.WrapGates != nil {
		g = rt.opts.WrapGates(g)
	}
	return g
}

// execHook runs the before_tool_call hook of the outer exec (CM-NEST-21):
// toolKind code_mode_exec and the input language. A blocked exec fails with
// invalid_input carrying the hook's reason; a hook that cannot be asked
// fails closed the same way.
func (rt *Runtime) execHook(ctx context.Context, r *agentRun, toolCallID string, input json.RawMessage, lang string) *result.Result {
	g := rt.gatekeeper()
	if g == nil || !r.gate.hooks {
		return nil
	}
	if lang == "" {
		lang = "javascript"
	}
	h, err := g.BeforeToolCall(ctx, protocol.HookParams{Run: r.id, ToolCallID: toolCallID, Tool: "exec",
		Input: bridge.WellFormedInput(input), ToolKind: protocol.ToolKindCodeModeExec, ToolInputKind: lang})
	if err != nil {
		f := result.Failed(result.CodeInvalidInput, "exec blocked: the before_tool_call hook could not be asked: "+err.Error())
		return &f
	}
	if h.Decision != protocol.HookAllow {
		f := result.Failed(result.CodeInvalidInput, "exec blocked by a before_tool_call hook: "+blockReason(h))
		return &f
	}
	return nil
}

// invokeGated runs the nested call p through the run's before_tool_call
// hook and approval policy, then invokes it (CM-NEST-02, CM-NEST-03). A
// blocked or denied call is a *ToolError the guest can catch; the tool is
// never invoked. A pending approval keeps the call in flight, so the cell
// suspends as for any slow call and resumes on wait once it is decided.
// A hook's trusted rewrite is left in p.Input (the executed input).
func (s *step) invokeGated(ctx context.Context, p *protocol.InvokeParams, network bool) (json.RawMessage, error) {
	if err := s.gateCall(ctx, p); err != nil {
		return nil, err
	}
	if network { // from its start, as OpenClaw counts a network invocation; a blocked or denied call saw none (untrusted.go)
		s.c.network.observe()
	}
	s.c.noteExecuted(p.ToolCallID) // activity.go: CM-NEST-19
	return s.rt.inv.Invoke(ctx, *p)
}

// gateCall asks the run's before_tool_call hook and approval policy about
// the nested call p before it runs: harness tools and MCP tools alike, since
// MCP entries share the catalog's hooks and approvals (000 [MCP]; CM-NEST-02,
// CM-NEST-03). A hook's trusted rewrite replaces p.Input. A non-nil error is
// the guest's catchable *ToolError; the call must not run.
func (s *step) gateCall(ctx context.Context, p *protocol.InvokeParams) error {
	gate := s.c.run.gate
	g := s.rt.gatekeeper()
	if g == nil {
		return nil
	}
	if gate.hooks {
		h, err := g.BeforeToolCall(ctx, protocol.HookParams{Run: p.Run, ToolCallID: p.ToolCallID, ParentToolCallID: p.ParentToolCallID,
			CatalogID: p.CatalogID, Tool: p.Tool, Input: p.Input, ToolKind: protocol.ToolKindNested})
		if err != nil {
			return &ToolError{Message: "blocked: the before_tool_call hook could not be asked: " + err.Error()}
		}
		if h.Decision != protocol.HookAllow {
			return gateError("blocked by a before_tool_call hook: "+blockReason(h), map[string]any{"blocked": true, "reason": h.Reason})
		}
		if len(h.Params) > 0 && json.Valid(h.Params) {
			p.Input = h.Params // a trusted rewrite
		}
	}
	if slices.Contains(gate.approvals, p.Tool) {
		return s.approve(ctx, g, *p)
	}
	return nil
}

// approve asks approval.request until the call is approved (nil), denied
// or cannot be asked (a *ToolError: fail closed), or ctx ends.
func (s *step) approve(ctx context.Context, g Gatekeeper, p protocol.InvokeParams) error {
	a := protocol.ApprovalParams{Run: p.Run, ToolCallID: p.ToolCallID, ParentToolCallID: p.ParentToolCallID,
		CatalogID: p.CatalogID, Tool: p.Tool, Input: p.Input}
	for {
		res, err := g.RequestApproval(ctx, a)
		if err != nil {
			return &ToolError{Message: "approval denied: the approval request failed: " + err.Error()}
		}
		switch res.Decision {
		case protocol.ApprovalApproved:
			return nil
		case protocol.ApprovalPending:
			if res.ApprovalID == "" {
				return &ToolError{Message: "approval denied: a pending approval without an approvalId cannot be followed"}
			}
			a.ApprovalID = res.ApprovalID
			t := time.NewTimer(approvalRepoll)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return &ToolError{Message: "nested tool call canceled while its approval was pending: " + ctx.Err().Error()}
			}
		case protocol.ApprovalDenied:
			return gateError("approval denied: "+orNone(res.Reason), map[string]any{"approval": "denied", "reason": res.Reason})
		default:
			return &ToolError{Message: fmt.Sprintf("approval denied: unknown decision %q", res.Decision)}
		}
	}
}

func gateError(msg string, data map[string]any) *ToolError {
	b, _ := json.Marshal(data)
	return &ToolError{Message: msg, Data: b}
}

func blockReason(h protocol.HookResult) string {
	if h.Decision != protocol.HookBlock {
		return fmt.Sprintf("unknown decision %q", h.Decision)
	}
	return orNone(h.Reason)
}

func orNone(reason string) string {
	if reason == "" {
		return "(no reason given)"
	}
	return reason
}
