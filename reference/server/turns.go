package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/reference/agent"
	"github.com/codemode-conformance/codemode/reference/catalog"
	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/creachadair/jrpc2"
)

// turns serves agent.turn (feature agent-turn): it keeps each prepared
// run's model-visible surface and runs turns through reference/agent, with
// exec/wait in the runtime and direct tools as tool.invoke.
type turns struct {
	rt  *codemode.Runtime
	inv *invoker
	hc  *http.Client

	mu       sync.Mutex
	surfaces map[string]agent.Surface
	// running cancels each run's turns in flight: run.end and run.abort
	// stop a turn waiting on a slow provider instead of letting it go on
	// for up to MaxSteps requests against a run that is gone.
	running map[string]map[*context.CancelFunc]struct{}
}

func newTurns(rt *codemode.Runtime, inv *invoker) *turns {
	return &turns{rt: rt, inv: inv, hc: &http.Client{Timeout: 2 * time.Minute}, surfaces: map[string]agent.Surface{},
		running: map[string]map[*context.CancelFunc]struct{}{}}
}

// prepared records the surface of a run that run.prepare registered.
func (t *turns) prepared(p protocol.PrepareParams, res protocol.PrepareResult) {
	if !t.rt.HasRun(p.Run) {
		return
	}
	s := agent.Surface{Run: p.Run, Context: p.RunContext, Active: res.CodeModeActive, Tools: res.Tools, Direct: map[string]agent.Direct{}}
	effective := catalog.Effective(p)
	for _, m := range res.Tools {
		if s.Active && (m.Name == "exec" || m.Name == "wait") {
			continue
		}
		for _, spec := range effective {
			if spec.Name == m.Name {
				s.Direct[m.Name] = agent.Direct{CatalogID: spec.Source + ":" + spec.Owner + ":" + spec.Name, Spec: spec}
				break
			}
		}
	}
	t.mu.Lock()
	t.surfaces[p.Run] = s
	t.mu.Unlock()
}

func (t *turns) ended(run string) {
	t.mu.Lock()
	delete(t.surfaces, run)
	t.mu.Unlock()
	t.cancel(run)
}

// cancel stops the run's turns in flight (run.end, run.abort).
func (t *turns) cancel(run string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for c := range t.running[run] {
		(*c)()
	}
	delete(t.running, run)
}

func (t *turns) turn(ctx context.Context, p protocol.AgentTurnParams, faults bool) (protocol.AgentTurnResult, error) {
	if err := agent.Check(p); err != nil {
		return protocol.AgentTurnResult{}, jrpc2.Errorf(jrpc2.InvalidParams, "agent.turn: %v", err)
	}
	t.mu.Lock()
	s, ok := t.surfaces[p.Run]
	if !ok || !t.rt.HasRun(p.Run) {
		t.mu.Unlock()
		return protocol.AgentTurnResult{}, unknownRun(p.Run)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if t.running[p.Run] == nil {
		t.running[p.Run] = map[*context.CancelFunc]struct{}{}
	}
	t.running[p.Run][&cancel] = struct{}{}
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.running[p.Run], &cancel)
		if len(t.running[p.Run]) == 0 {
			delete(t.running, p.Run)
		}
		t.mu.Unlock()
	}()
	return agent.Turn(ctx, t.hc, s, host{t.rt, t.inv}, p, faults), nil
}

// host runs a turn's tool calls as tool.exec, tool.wait and tool.invoke
// would: traced, so run.trajectory shows them.
type host struct {
	rt  *codemode.Runtime
	inv *invoker
}

func (h host) Exec(ctx context.Context, run, id, responseID string, input json.RawMessage) (json.RawMessage, error) {
	return marshal(h.rt.TracedIn(run, "exec", id, responseID, input, func() (result.Result, error) { return h.rt.ExecIn(ctx, run, id, responseID, input) }))
}

func (h host) Wait(ctx context.Context, run, id, responseID string, input json.RawMessage) (json.RawMessage, error) {
	return marshal(h.rt.TracedIn(run, "wait", id, responseID, input, func() (result.Result, error) { return h.rt.Wait(ctx, run, id, input) }))
}

// Invoke runs a direct tool call of the model; under nested-activity it is
// a model call of the session's history (the replay view, §4.2).
func (h host) Invoke(ctx context.Context, p protocol.InvokeParams, responseID string) (json.RawMessage, error) {
	done := h.rt.TraceDirect(p.Run, p.ToolCallID, responseID, p.Tool, p.Input)
	out, err := h.inv.Invoke(ctx, p)
	done(err)
	var te *codemode.ToolError
	if errors.As(err, &te) {
		return nil, errors.New(te.Message)
	}
	return out, err
}
