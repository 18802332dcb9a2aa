package server

import (
	"context"
	"fmt"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/creachadair/jrpc2"
)

// BeforeToolCall sends hook.beforeToolCall to the harness (features hooks,
// CM-NEST-02, CM-NEST-21; spec/protocol.md §4.1).
func (i *invoker) BeforeToolCall(ctx context.Context, p protocol.HookParams) (protocol.HookResult, error) {
	var out protocol.HookResult
	err := i.ask(ctx, protocol.MethodHookBeforeToolCall, p, &out)
	return out, err
}

// RequestApproval sends approval.request to the harness (feature
// approvals, CM-NEST-03).
func (i *invoker) RequestApproval(ctx context.Context, p protocol.ApprovalParams) (protocol.ApprovalResult, error) {
	var out protocol.ApprovalResult
	err := i.ask(ctx, protocol.MethodApprovalRequest, p, &out)
	return out, err
}

// BeforeMessageWrite sends hook.beforeMessageWrite to the harness (feature
// nested-activity, CM-NEST-19; spec/protocol.md §4.2).
func (i *invoker) BeforeMessageWrite(ctx context.Context, p protocol.MessageWriteParams) (protocol.MessageWriteResult, error) {
	var out protocol.MessageWriteResult
	err := i.ask(ctx, protocol.MethodHookBeforeMessageWrite, p, &out)
	return out, err
}

// AgentEnd sends hook.agentEnd to the harness (feature nested-activity,
// CM-NEST-19).
func (i *invoker) AgentEnd(ctx context.Context, p protocol.AgentEndParams) error {
	var out bool
	return i.ask(ctx, protocol.MethodHookAgentEnd, p, &out)
}

// ask makes one target → harness request and decodes its answer into out;
// the caller stops waiting when ctx ends. As in Invoke, the callback itself
// is canceled only once the stray filter forgot its id, so that a late
// answer is dropped there and never answered by jrpc2 with an error: for a
// message hook, a second after protocol.MessageHookBudget (the filter
// forgets at the budget, spec/protocol/stray.go), so no unanswered hook is
// kept past it; other hooks wait for their answer.
func (i *invoker) ask(ctx context.Context, method string, params, out any) error {
	i.mu.Lock()
	srv := i.srv
	i.mu.Unlock()
	if srv == nil {
		return fmt.Errorf("%s: no harness connection", method)
	}
	type answer struct {
		rsp *jrpc2.Response
		err error
	}
	cbctx, cbcancel := context.WithoutCancel(ctx), context.CancelFunc(func() {})
	if method == protocol.MethodHookBeforeMessageWrite || method == protocol.MethodHookAgentEnd {
		cbctx, cbcancel = context.WithTimeout(cbctx, protocol.MessageHookBudget+time.Second)
	}
	ch := make(chan answer, 1)
	go func() {
		defer cbcancel()
		rsp, err := srv.Callback(cbctx, method, params)
		ch <- answer{rsp, err}
	}()
	select {
	case a := <-ch:
		if a.err != nil {
			return fmt.Errorf("%s: %w", method, a.err)
		}
		if err := a.rsp.UnmarshalResult(out); err != nil {
			return fmt.Errorf("%s returned a malformed result: %w", method, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}
