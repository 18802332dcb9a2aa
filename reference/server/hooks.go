package server

import (
	"context"
	"fmt"

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

// ask makes one target → harness request and decodes its answer into out.
// As in Invoke, the callback itself is never canceled (jrpc2 would forget
// its id); the caller stops waiting when ctx ends.
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
	ch := make(chan answer, 1)
	go func() {
		rsp, err := srv.Callback(context.WithoutCancel(ctx), method, params)
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
