package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/onsi/ginkgo/v2"
)

// Gates is the harness's side of one run's hooks and approvals
// (hook.beforeToolCall and approval.request, spec/protocol.md §4.1,
// features hooks and approvals). Set it in RunOptions: the run opts in
// through run.prepare's hooks member when Hook is set or HookEvents is
// true, and its approvals member when Approve is set.
type Gates struct {
	// Hook decides each hook.beforeToolCall; nil allows every call.
	Hook func(protocol.HookParams) protocol.HookResult
	// HookEvents opts into hooks even when Hook is nil (record only).
	HookEvents bool
	// ApprovalTools are the tool names whose nested calls need approval.
	ApprovalTools []string
	// Approve decides the first approval.request of a call; nil approves.
	// A pending answer is held: the harness answers the target's next
	// request for it once Decide is called.
	Approve func(protocol.ApprovalParams) protocol.ApprovalResult
	// MessageWrite decides each hook.beforeMessageWrite (feature
	// nested-activity, activity.go); nil: the run does not opt in.
	MessageWrite func(protocol.MessageWriteParams) protocol.MessageWriteResult
	// AgentEnd opts the run into hook.agentEnd (activity.go).
	AgentEnd bool

	mu        sync.Mutex
	writes    []protocol.MessageWriteParams
	agentEnds []protocol.AgentEndParams
	hooks     []protocol.HookParams
	approvals []protocol.ApprovalParams
	decided   chan struct{}
	decision  protocol.ApprovalResult
	decide    sync.Once
}

// pendingHold bounds how long the harness holds the answer to a request
// about a pending approval; then it answers pending again and the target
// asks again.
const pendingHold = 2 * time.Second

// Pending is an Approve policy: every call's approval is pending until
// Decide.
func Pending(p protocol.ApprovalParams) protocol.ApprovalResult {
	return protocol.ApprovalResult{Decision: protocol.ApprovalPending, ApprovalID: "approval-" + p.ToolCallID}
}

// Decide settles every pending approval of the run with decision
// (protocol.ApprovalApproved or ApprovalDenied); only the first call counts.
func (g *Gates) Decide(decision, reason string) {
	g.decide.Do(func() {
		ch := g.decidedCh()
		g.mu.Lock()
		g.decision = protocol.ApprovalResult{Decision: decision, Reason: reason}
		g.mu.Unlock()
		close(ch)
	})
}

// decidedCh is closed once Decide was called.
func (g *Gates) decidedCh() chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.decided == nil {
		g.decided = make(chan struct{})
	}
	return g.decided
}

// HookEventsSeen lists the hook.beforeToolCall params received, in order.
func (g *Gates) HookEventsSeen() []protocol.HookParams {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.hooks)
}

// HookEventsFor lists the hook events of tool name (ToolKind nested).
func (g *Gates) HookEventsFor(tool string) []protocol.HookParams {
	var out []protocol.HookParams
	for _, h := range g.HookEventsSeen() {
		if h.Tool == tool && h.ToolKind != protocol.ToolKindCodeModeExec {
			out = append(out, h)
		}
	}
	return out
}

// ApprovalRequests lists the approval.request params received, in order.
func (g *Gates) ApprovalRequests() []protocol.ApprovalParams {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.approvals)
}

// Block is a Hook policy blocking the nested calls of the named tools with
// reason, and allowing everything else.
func Block(reason string, names ...string) func(protocol.HookParams) protocol.HookResult {
	return func(p protocol.HookParams) protocol.HookResult {
		if p.ToolKind != protocol.ToolKindCodeModeExec && slices.Contains(names, p.Tool) {
			return protocol.HookResult{Decision: protocol.HookBlock, Reason: reason}
		}
		return protocol.HookResult{Decision: protocol.HookAllow}
	}
}

// register records g as the gates of run id until the spec ends and
// returns run.prepare's hooks and approvals members (nil, nil for nil g).
func (g *Gates) register(id string) (*protocol.HookOptions, *protocol.ApprovalOptions) {
	if g == nil {
		return nil, nil
	}
	if g.Hook != nil || g.HookEvents || g.MessageWrite != nil || g.AgentEnd {
		RequireDrivable(protocol.SurfaceHooks)
	}
	if len(g.ApprovalTools) > 0 {
		RequireDrivable(protocol.SurfaceApprovals)
	}
	g.decidedCh()
	gatesByRun.Store(id, g)
	ginkgo.DeferCleanup(func() {
		g.Decide(protocol.ApprovalDenied, "the spec ended") // release held answers
		gatesByRun.Delete(id)
	})
	var h *protocol.HookOptions
	if g.Hook != nil || g.HookEvents || g.MessageWrite != nil || g.AgentEnd {
		h = &protocol.HookOptions{BeforeToolCall: g.Hook != nil || g.HookEvents, BeforeMessageWrite: g.MessageWrite != nil, AgentEnd: g.AgentEnd}
	}
	var a *protocol.ApprovalOptions
	if len(g.ApprovalTools) > 0 {
		a = &protocol.ApprovalOptions{Tools: slices.Clone(g.ApprovalTools)}
	}
	return h, a
}

// gatesByRun holds each live run's Gates by run id.
var gatesByRun sync.Map

// runGates answers hook.beforeToolCall and approval.request for the run
// each names; a run without Gates never opted in, and the request is an
// error the target must treat as a block or denial (fail closed).
type runGates struct{}

func gatesOf(run string) (*Gates, error) {
	if g, ok := gatesByRun.Load(run); ok {
		return g.(*Gates), nil
	}
	return nil, fmt.Errorf("harness: run %q did not opt into hooks or approvals in run.prepare", run)
}

func (runGates) BeforeToolCall(_ context.Context, p protocol.HookParams) (protocol.HookResult, error) {
	g, err := gatesOf(p.Run)
	if err != nil {
		return protocol.HookResult{}, err
	}
	p.Input = append(json.RawMessage(nil), p.Input...)
	g.mu.Lock()
	g.hooks = append(g.hooks, p)
	g.mu.Unlock()
	if g.Hook == nil {
		return protocol.HookResult{Decision: protocol.HookAllow}, nil
	}
	return g.Hook(p), nil
}

func (runGates) RequestApproval(ctx context.Context, p protocol.ApprovalParams) (protocol.ApprovalResult, error) {
	g, err := gatesOf(p.Run)
	if err != nil {
		return protocol.ApprovalResult{}, err
	}
	g.mu.Lock()
	g.approvals = append(g.approvals, p)
	g.mu.Unlock()
	if p.ApprovalID == "" {
		if g.Approve == nil {
			return protocol.ApprovalResult{Decision: protocol.ApprovalApproved}, nil
		}
		return g.Approve(p), nil
	}
	// A request about a pending approval: hold it until decided.
	t := time.NewTimer(pendingHold)
	defer t.Stop()
	select {
	case <-g.decidedCh():
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.decision, nil
	case <-t.C:
		return protocol.ApprovalResult{Decision: protocol.ApprovalPending, ApprovalID: p.ApprovalID}, nil
	case <-ctx.Done():
		return protocol.ApprovalResult{}, ctx.Err()
	}
}
