package framework

import (
	"context"
	"slices"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// Nested activity on the harness side (feature nested-activity,
// spec/protocol.md §4.2): model calls with a chosen call id and assistant
// response, run.trajectory's views, and the message hooks of Gates.

// ModelCall names an exec/wait model call: its toolCallId (empty: a fresh
// one) and the assistantResponseId of the response that carried it.
type ModelCall struct {
	ToolCallID          string
	AssistantResponseID string
}

// ExecAs sends exec {code} as model call mc: the same mc twice is a replay of
// one call (CM-NEST-18).
func (r *Run) ExecAs(ctx context.Context, code string, mc ModelCall) Result {
	ginkgo.GinkgoHelper()
	res := r.modelCall(ctx, protocol.MethodToolExec, map[string]any{"code": code}, mc)
	res.GuestCode = code
	return res
}

// ExecAsOrError is ExecAs for a call the target may refuse: its JSON-RPC
// error is returned instead of failing the spec (CM-NEST-18: a repeat of a
// call still in flight).
func (r *Run) ExecAsOrError(ctx context.Context, code string, mc ModelCall) (Result, error) {
	ginkgo.GinkgoHelper()
	res, err := r.modelCallOrError(ctx, protocol.MethodToolExec, map[string]any{"code": code}, mc)
	res.GuestCode = code
	return res, err
}

// WaitAs sends wait {runId} as model call mc.
func (r *Run) WaitAs(ctx context.Context, runID string, mc ModelCall) Result {
	ginkgo.GinkgoHelper()
	return r.modelCall(ctx, protocol.MethodToolWait, map[string]any{"runId": runID}, mc)
}

// FollowAs is Follow with each wait sent as a call of response (fresh call
// ids).
func (r *Run) FollowAs(ctx context.Context, res Result, response string) (Result, []Result) {
	ginkgo.GinkgoHelper()
	return r.follow(ctx, res, func(id string) Result { return r.WaitAs(ctx, id, ModelCall{AssistantResponseID: response}) })
}

// TrajectoryView asks run.trajectory for view (protocol.TrajectoryView*),
// reloading the session's history first when reload is set, and fails the
// spec on a protocol error.
func (r *Run) TrajectoryView(ctx context.Context, view string, reload bool) protocol.TrajectoryResult {
	ginkgo.GinkgoHelper()
	p := protocol.TrajectoryParams{Run: r.ID, View: view, Reload: reload}
	var tr protocol.TrajectoryResult
	err := T().Call(ctx, protocol.MethodRunTrajectory, p, &tr)
	r.log(protocol.MethodRunTrajectory, p, tr, err)
	NotAnswered("nested-activity", protocol.MethodRunTrajectory, err)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "run.trajectory %+v failed at the protocol level", p)
	gomega.Expect(tr.Run).To(gomega.Equal(r.ID), "run.trajectory must name the run")
	return tr
}

// MessageWrites lists the hook.beforeMessageWrite params received, in order.
func (g *Gates) MessageWrites() []protocol.MessageWriteParams {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.writes)
}

// AgentEnds lists the hook.agentEnd params received, in order.
func (g *Gates) AgentEnds() []protocol.AgentEndParams {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.agentEnds)
}

func (runGates) BeforeMessageWrite(_ context.Context, p protocol.MessageWriteParams) (protocol.MessageWriteResult, error) {
	g, err := gatesOf(p.Run)
	if err != nil {
		return protocol.MessageWriteResult{}, err
	}
	g.mu.Lock()
	g.writes = append(g.writes, p)
	g.mu.Unlock()
	if g.MessageWrite == nil {
		return protocol.MessageWriteResult{Decision: protocol.MessageWrite}, nil
	}
	return g.MessageWrite(p), nil
}

func (runGates) AgentEnd(_ context.Context, p protocol.AgentEndParams) error {
	g, err := gatesOf(p.Run)
	if err != nil {
		return err
	}
	g.mu.Lock()
	g.agentEnds = append(g.agentEnds, p)
	g.mu.Unlock()
	return nil
}
