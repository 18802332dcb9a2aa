package broken

import (
	"context"
	"io"
	"sync"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// The hooks and approvals variants (issue 14): each wraps the reference's
// Gatekeeper, so the reference asks the harness's hooks and approvals the
// way a runtime with that defect would.
func init() {
	Variants = append(Variants,
		Variant{Name: "hook-skipped-after-resume", Breaks: "CM-NEST-02", Spec: "after a resume",
			Defect: "the before_tool_call hook is bound to the exec call: nested calls made after a wait resumed the cell are never shown to it",
			Serve: gated(func() func(codemode.Gatekeeper) codemode.Gatekeeper {
				seen := &execCalls{ids: map[string]bool{}}
				return func(g codemode.Gatekeeper) codemode.Gatekeeper { return execBoundHooks{g, seen} }
			})},
		Variant{Name: "pending-approval-denied", Breaks: "CM-NEST-03", Spec: "once approved",
			Defect: "a pending approval is treated as denied: the call rejects at once instead of suspending the cell",
			Serve: gated(func() func(codemode.Gatekeeper) codemode.Gatekeeper {
				return func(g codemode.Gatekeeper) codemode.Gatekeeper { return pendingIsDenied{g} }
			})},
	)
}

// gated serves the reference with its Gatekeeper wrapped by a wrapper
// newWrap makes once per connection (the runtime wraps for every request,
// so state lives in newWrap's closure).
func gated(newWrap func() func(codemode.Gatekeeper) codemode.Gatekeeper) serveFunc {
	return func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
		return server.Serve(ctx, r, w, server.Options{Engine: eng, Runtime: codemode.Options{WrapGates: newWrap()}})
	}
}

// execBoundHooks asks the hook only about the exec calls it saw and the
// nested calls made under them; a nested call whose parent is a wait is
// allowed unasked.
type execBoundHooks struct {
	codemode.Gatekeeper
	seen *execCalls
}

// execCalls are the exec call ids a connection's hook saw.
type execCalls struct {
	mu  sync.Mutex
	ids map[string]bool
}

func (h execBoundHooks) BeforeToolCall(ctx context.Context, p protocol.HookParams) (protocol.HookResult, error) {
	h.seen.mu.Lock()
	if p.ToolKind == protocol.ToolKindCodeModeExec {
		h.seen.ids[p.ToolCallID] = true
	}
	skip := p.ToolKind != protocol.ToolKindCodeModeExec && !h.seen.ids[p.ParentToolCallID]
	h.seen.mu.Unlock()
	if skip {
		return protocol.HookResult{Decision: protocol.HookAllow}, nil
	}
	return h.Gatekeeper.BeforeToolCall(ctx, p)
}

// pendingIsDenied turns a pending approval into a denial.
type pendingIsDenied struct{ codemode.Gatekeeper }

func (d pendingIsDenied) RequestApproval(ctx context.Context, p protocol.ApprovalParams) (protocol.ApprovalResult, error) {
	res, err := d.Gatekeeper.RequestApproval(ctx, p)
	if err == nil && res.Decision == protocol.ApprovalPending {
		return protocol.ApprovalResult{Decision: protocol.ApprovalDenied, Reason: "approval still pending"}, nil
	}
	return res, err
}
