package protocol

import (
	"context"
	"encoding/json"

	"github.com/creachadair/jrpc2"
)

// Hooks and approvals (spec/protocol.md §4.1, features hooks and approvals,
// CM-NEST-02, CM-NEST-03, CM-NEST-21): target → harness requests a run opts
// into through run.prepare's hooks and approvals members.
const (
	// MethodHookBeforeToolCall is target → harness: the before_tool_call
	// hook of one tool call (the outer exec, or a nested call). Answer:
	// HookResult.
	MethodHookBeforeToolCall = "hook.beforeToolCall"
	// MethodApprovalRequest is target → harness: the approval policy's
	// decision on one nested call. Answer: ApprovalResult.
	MethodApprovalRequest = "approval.request"
)

// Surfaces a target that declares hooks or approvals but cannot wire them
// through run.prepare names in initialize's notDrivable (§3).
const (
	SurfaceHooks     = "hooks"
	SurfaceApprovals = "approvals"
)

// Values of HookParams.ToolKind.
const (
	// ToolKindCodeModeExec marks the hook event of the outer code mode exec
	// (CM-NEST-21), so policies can tell a cell from a shell-style exec.
	ToolKindCodeModeExec = "code_mode_exec"
	// ToolKindNested marks the hook event of a nested tool call.
	ToolKindNested = "nested"
)

// Hook decisions (HookResult.Decision).
const (
	HookAllow = "allow"
	HookBlock = "block"
)

// Approval decisions (ApprovalResult.Decision).
const (
	ApprovalApproved = "approved"
	ApprovalDenied   = "denied"
	ApprovalPending  = "pending"
)

// HookOptions is run.prepare's hooks member: which hooks the harness
// answers for this run. Absent or false: the target sends no hook request.
type HookOptions struct {
	BeforeToolCall bool `json:"beforeToolCall,omitempty"`
	// BeforeMessageWrite and AgentEnd (feature nested-activity, activity.go):
	// the harness answers hook.beforeMessageWrite and hook.agentEnd.
	BeforeMessageWrite bool `json:"beforeMessageWrite,omitempty"`
	AgentEnd           bool `json:"agentEnd,omitempty"`
}

// ApprovalOptions is run.prepare's approvals member: the tool names
// (ToolSpec.Name) whose nested calls need approval.request first.
type ApprovalOptions struct {
	Tools []string `json:"tools"`
}

// HookParams are the params of hook.beforeToolCall. For the outer exec,
// ToolCallID is the exec's own call id, Tool is "exec", CatalogID and
// ParentToolCallID are empty, Input is the exec input and ToolInputKind is
// "javascript" or "typescript" when the language is known. For a nested
// call they are those tool.invoke would carry, and ToolKind is "nested".
type HookParams struct {
	Run              string          `json:"run"`
	ToolCallID       string          `json:"toolCallId"`
	ParentToolCallID string          `json:"parentToolCallId,omitempty"`
	CatalogID        string          `json:"catalogId,omitempty"`
	Tool             string          `json:"tool"`
	Input            json.RawMessage `json:"input"`
	ToolKind         string          `json:"toolKind"`
	ToolInputKind    string          `json:"toolInputKind,omitempty"`
}

// HookResult answers hook.beforeToolCall. Decision is HookAllow or
// HookBlock (then Reason says why; the guest's error carries it). Params,
// on allow, is a trusted rewrite of the input the call then uses.
type HookResult struct {
	Decision string          `json:"decision"`
	Reason   string          `json:"reason,omitempty"`
	Params   json.RawMessage `json:"params,omitempty"`
}

// ApprovalParams are the params of approval.request: the nested call as
// tool.invoke would carry it. ApprovalID is empty on the first request and
// set to the id a pending answer gave when the target asks again.
type ApprovalParams struct {
	Run              string          `json:"run"`
	ToolCallID       string          `json:"toolCallId"`
	ParentToolCallID string          `json:"parentToolCallId"`
	CatalogID        string          `json:"catalogId"`
	Tool             string          `json:"tool"`
	Input            json.RawMessage `json:"input"`
	ApprovalID       string          `json:"approvalId,omitempty"`
}

// ApprovalResult answers approval.request. Decision is ApprovalApproved,
// ApprovalDenied (Reason says why) or ApprovalPending (ApprovalID names the
// pending approval; the target asks again with it, and the cell suspends
// meanwhile like any nested call still in flight).
type ApprovalResult struct {
	Decision   string `json:"decision"`
	Reason     string `json:"reason,omitempty"`
	ApprovalID string `json:"approvalId,omitempty"`
}

// Gates answers hook.beforeToolCall and approval.request on the harness
// side (NewClient's optional last argument).
type Gates interface {
	BeforeToolCall(ctx context.Context, p HookParams) (HookResult, error)
	RequestApproval(ctx context.Context, p ApprovalParams) (ApprovalResult, error)
}

// answerGate answers a hook.beforeToolCall or approval.request callback
// with g; ok is false for any other method.
func answerGate(ctx context.Context, req *jrpc2.Request, g Gates) (v any, ok bool, err error) {
	switch req.Method() {
	case MethodHookBeforeToolCall:
		var p HookParams
		if err := req.UnmarshalParams(&p); err != nil {
			return nil, true, jrpc2.Errorf(jrpc2.InvalidParams, "%s: %v", MethodHookBeforeToolCall, err)
		}
		v, err = g.BeforeToolCall(ctx, p)
		return v, true, err
	case MethodApprovalRequest:
		var p ApprovalParams
		if err := req.UnmarshalParams(&p); err != nil {
			return nil, true, jrpc2.Errorf(jrpc2.InvalidParams, "%s: %v", MethodApprovalRequest, err)
		}
		v, err = g.RequestApproval(ctx, p)
		return v, true, err
	}
	return answerMessageHook(ctx, req, g) // activity.go
}
