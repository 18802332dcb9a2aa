package protocol

import (
	"context"
	"time"

	"github.com/creachadair/jrpc2"
)

// Nested activity (feature nested-activity, spec/protocol.md §4.2,
// CM-NEST-17..19): views of run.trajectory and two message hooks.

// Views of run.trajectory (TrajectoryParams.View).
const (
	// TrajectoryViewCalls is the default view: the run's exec/wait calls
	// and the nested calls under each (CM-NEST-07).
	TrajectoryViewCalls = "calls"
	// TrajectoryViewActivity is the session's persisted nested activity:
	// one display-only row per completed nested call (CM-NEST-17).
	TrajectoryViewActivity = "activity"
	// TrajectoryViewReplay is what the next provider request would carry as
	// history: the real model calls only (CM-NEST-17).
	TrajectoryViewReplay = "replay"
)

// TrajectoryParams are the params of run.trajectory. View is empty or one
// of the TrajectoryView constants; Reload asks the target to reload the
// session's history from its persisted transcript first.
type TrajectoryParams struct {
	Run    string `json:"run"`
	View   string `json:"view,omitempty"`
	Reload bool   `json:"reload,omitempty"`
}

// Message hooks (target → harness), each opted into through run.prepare's
// hooks member (HookOptions).
const (
	// MethodHookBeforeMessageWrite is sent before a nested-activity row is
	// persisted. Answer: MessageWriteResult.
	MethodHookBeforeMessageWrite = "hook.beforeMessageWrite"
	// MethodHookAgentEnd is sent on run.end, before the target answers it.
	// Answer: true.
	MethodHookAgentEnd = "hook.agentEnd"
)

// MessageHookBudget is how long a target waits for the answer to one
// hook.beforeMessageWrite or hook.agentEnd (§4.2): past it an unanswered
// hook.beforeMessageWrite counts as write and an unanswered hook.agentEnd
// lets run.end answer, and the target forgets the request, so a later
// answer is a stray response, dropped (§1).
const MessageHookBudget = 10 * time.Second

// Decisions of hook.beforeMessageWrite (MessageWriteResult.Decision). An
// error or any other decision counts as MessageWrite.
const (
	MessageWrite    = "write"
	MessageSuppress = "suppress"
)

// MessageWriteParams are the params of hook.beforeMessageWrite: the row
// about to be persisted (DisplayOnly set).
type MessageWriteParams struct {
	Run string         `json:"run"`
	Row TrajectoryCall `json:"row"`
}

// MessageWriteResult answers hook.beforeMessageWrite.
type MessageWriteResult struct {
	Decision string `json:"decision"`
}

// AgentEndParams are the params of hook.agentEnd. Activity is the run's
// accepted nested activity as finalisation reads it from the transcript
// (suppressed rows absent); ExecutedToolCallIDs lists every nested call of
// the run that ran, suppressed ones included (CM-NEST-19). Truncated is
// true when the target stopped recording either list.
type AgentEndParams struct {
	Run                 string           `json:"run"`
	Activity            []TrajectoryCall `json:"activity"`
	ExecutedToolCallIDs []string         `json:"executedToolCallIds"`
	Truncated           bool             `json:"truncated,omitempty"`
}

// MessageHooks answers hook.beforeMessageWrite and hook.agentEnd on the
// harness side. A Gates given to NewClient that also implements it serves
// them; otherwise they are answered -32601.
type MessageHooks interface {
	BeforeMessageWrite(ctx context.Context, p MessageWriteParams) (MessageWriteResult, error)
	AgentEnd(ctx context.Context, p AgentEndParams) error
}

// answerMessageHook answers a message hook with g when g implements
// MessageHooks; ok is false for any other method.
func answerMessageHook(ctx context.Context, req *jrpc2.Request, g Gates) (v any, ok bool, err error) {
	h, is := g.(MessageHooks)
	switch m := req.Method(); {
	case !is || (m != MethodHookBeforeMessageWrite && m != MethodHookAgentEnd):
		return nil, false, nil
	case m == MethodHookBeforeMessageWrite:
		var p MessageWriteParams
		if err := req.UnmarshalParams(&p); err != nil {
			return nil, true, jrpc2.Errorf(jrpc2.InvalidParams, "%s: %v", m, err)
		}
		v, err = h.BeforeMessageWrite(ctx, p)
		return v, true, err
	default:
		var p AgentEndParams
		if err := req.UnmarshalParams(&p); err != nil {
			return nil, true, jrpc2.Errorf(jrpc2.InvalidParams, "%s: %v", m, err)
		}
		if err := h.AgentEnd(ctx, p); err != nil {
			return nil, true, err
		}
		return true, true, nil
	}
}
