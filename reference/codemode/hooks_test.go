package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// gateInvoker answers nested calls with their input and hook/approval
// requests with hook/approve.
type gateInvoker struct {
	countingInvoker
	hook    func(protocol.HookParams) (protocol.HookResult, error)
	approve func(protocol.ApprovalParams) (protocol.ApprovalResult, error)
}

func (g *gateInvoker) BeforeToolCall(_ context.Context, p protocol.HookParams) (protocol.HookResult, error) {
	return g.hook(p)
}

func (g *gateInvoker) RequestApproval(_ context.Context, p protocol.ApprovalParams) (protocol.ApprovalResult, error) {
	return g.approve(p)
}

func gatedRun(t *testing.T, inv *gateInvoker, profile string) *Runtime {
	t.Helper()
	eng, err := engine.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	rt := New(eng, inv, Options{Profile: profile})
	t.Cleanup(rt.Close)
	res := rt.Prepare(protocol.PrepareParams{Run: "faults", RunContext: protocol.RunContext{AgentID: "a", SessionID: "s", SessionKey: "k", SenderID: "x", Channel: "c"},
		CodeMode: json.RawMessage(`{"enabled":true}`), Tools: []protocol.ToolSpec{{Name: "echo", Description: "echo", Source: protocol.SourceOpenClaw, Owner: "core"}},
		Hooks: &protocol.HookOptions{BeforeToolCall: true}, Approvals: &protocol.ApprovalOptions{Tools: []string{"echo"}}})
	if !res.CodeModeActive {
		t.Fatalf("prepare: %+v", res)
	}
	return rt
}

const callEcho = `try { return await tools.call(ALL_TOOLS[0].id, {v: 1}); } catch (e) { return "caught: " + e.message; }`

// A hook or approval request that fails, or answers an unknown decision,
// blocks the call (fail closed, spec/protocol.md §4.1).
func TestGatesFailClosed(t *testing.T) {
	allow := func(protocol.HookParams) (protocol.HookResult, error) {
		return protocol.HookResult{Decision: protocol.HookAllow}, nil
	}
	approve := func(protocol.ApprovalParams) (protocol.ApprovalResult, error) {
		return protocol.ApprovalResult{Decision: protocol.ApprovalApproved}, nil
	}
	for name, inv := range map[string]*gateInvoker{
		"hook error": {hook: func(protocol.HookParams) (protocol.HookResult, error) {
			return protocol.HookResult{}, errors.New("down")
		}, approve: approve},
		"hook decision": {hook: func(protocol.HookParams) (protocol.HookResult, error) {
			return protocol.HookResult{Decision: "maybe"}, nil
		}, approve: approve},
		"approval error": {hook: allow, approve: func(protocol.ApprovalParams) (protocol.ApprovalResult, error) {
			return protocol.ApprovalResult{}, errors.New("down")
		}},
		"approval unknown": {hook: allow, approve: func(protocol.ApprovalParams) (protocol.ApprovalResult, error) {
			return protocol.ApprovalResult{Decision: "later"}, nil
		}},
		"pending no id": {hook: allow, approve: func(protocol.ApprovalParams) (protocol.ApprovalResult, error) {
			return protocol.ApprovalResult{Decision: protocol.ApprovalPending}, nil
		}},
	} {
		hook := inv.hook
		inv.hook = func(p protocol.HookParams) (protocol.HookResult, error) {
			if p.ToolKind == protocol.ToolKindCodeModeExec {
				return allow(p)
			}
			return hook(p)
		}
		res := execCode(t, gatedRun(t, inv, ""), callEcho)
		var s string
		_ = json.Unmarshal(res.Value, &s)
		if res.Status != result.StatusCompleted || !strings.HasPrefix(s, "caught:") {
			t.Errorf("%s: %+v, want a completed cell that caught the blocked call", name, res)
		}
		if n := inv.n.Load(); n != 0 {
			t.Errorf("%s: the tool was invoked %d times, want 0", name, n)
		}
	}
}

// An allowing hook's params are a trusted rewrite of the input.
func TestHookRewritesInput(t *testing.T) {
	inv := &gateInvoker{
		hook: func(p protocol.HookParams) (protocol.HookResult, error) {
			if p.ToolKind == protocol.ToolKindNested {
				return protocol.HookResult{Decision: protocol.HookAllow, Params: json.RawMessage(`{"v":2}`)}, nil
			}
			return protocol.HookResult{Decision: protocol.HookAllow}, nil
		},
		approve: func(protocol.ApprovalParams) (protocol.ApprovalResult, error) {
			return protocol.ApprovalResult{Decision: protocol.ApprovalApproved}, nil
		},
	}
	res := execCode(t, gatedRun(t, inv, ""), `return (await tools.call(ALL_TOOLS[0].id, {v: 1})).v;`)
	if res.Status != result.StatusCompleted || string(res.Value) != "2" {
		t.Errorf("%+v, want the rewritten input's v = 2", res)
	}
}
