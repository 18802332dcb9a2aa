// Package server serves the reference runtime over the driver protocol
// (spec/protocol.md): JSON-RPC 2.0, one message per line, on any byte stream.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/engine"
	refmcp "github.com/codemode-conformance/codemode/reference/mcp"
	"github.com/codemode-conformance/codemode/reference/store"
	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/handler"
)

// Name is the implementation name the reference reports in initialize.
const Name = "codemode-reference"

// Version is the reference implementation's version.
const Version = "0.1.0"

// Options configure a server.
type Options struct {
	// Engine is shared by every session; nil with Unavailable false means
	// "create one per server".
	Engine *engine.Engine
	// Unavailable simulates a runtime that cannot be loaded (CM-CFG-07).
	Unavailable bool
	// Runtime are the runtime options.
	Runtime codemode.Options
	// MaxMessageBytes bounds one message read from the peer
	// (protocol.DefaultMaxMessageBytes when 0). A longer line is dropped as
	// it is read and answered with protocol.ErrMessageTooLarge; the session
	// goes on (spec/protocol.md §1).
	MaxMessageBytes int
}

// Serve speaks the protocol on r/w until the peer disconnects or sends
// shutdown. It closes w when done. An unknown opts.Runtime.Profile is an
// error wrapping spec.ErrUnknownProfile, before anything is served.
func Serve(ctx context.Context, r io.Reader, w io.WriteCloser, opts Options) error {
	if _, err := spec.LookupProfile(opts.Runtime.Profile); err != nil {
		w.Close()
		return err
	}
	eng := opts.Engine
	if eng == nil && !opts.Unavailable {
		var err error
		if eng, err = engine.New(ctx); err != nil {
			// Fail closed per run rather than refusing the session.
			eng = nil
			opts.Runtime.UnavailableCause = err
		} else {
			defer eng.Close(context.Background())
		}
	}
	if opts.Unavailable {
		eng = nil
	}
	inv := &invoker{max: opts.MaxMessageBytes}
	if inv.max <= 0 {
		inv.max = protocol.DefaultMaxMessageBytes
	}
	rt := codemode.New(eng, inv, opts.Runtime)
	defer rt.Close()
	// shutdown may be called by a handler before NewServer has returned.
	var stopFn atomic.Pointer[func()]
	shutdown := func() {
		rt.StopConnecting() // a run.prepare still connecting MCP servers ends now
		if f := stopFn.Load(); f != nil {
			(*f)()
		}
	}
	srv, stop := protocol.NewServer(namedParamErrors(methods(rt, inv, opts.Runtime, shutdown)), protocol.NewLineChannel(r, w, opts.MaxMessageBytes))
	stopFn.Store(&stop)
	inv.set(srv)
	// Not a goroutine waiting on ctx: ctx is the process's for every session
	// of serve --listen, so that goroutine (and the session it holds) would
	// outlive the session (issue 28 N1).
	unwatch := context.AfterFunc(ctx, stop)
	defer unwatch()
	return srv.Wait()
}

// invoker sends tool.invoke back to the harness.
type invoker struct {
	mu  sync.Mutex
	srv *jrpc2.Server
	// max is the largest message the reference sends (its own read bound):
	// the harness's bound is 16 MiB unless both sides were given a larger
	// one (spec/protocol.md §1: a sender MUST NOT send more).
	max int
	// calls are the outstanding tool.invoke calls, which tool.update names
	// (streaming.go).
	calls outstanding
}

func (i *invoker) set(s *jrpc2.Server) { i.mu.Lock(); i.srv = s; i.mu.Unlock() }

func (i *invoker) Invoke(ctx context.Context, p protocol.InvokeParams) (json.RawMessage, error) {
	if len(p.Input) > i.max/2 { // only a large input can make the message too large
		// The params plus the envelope (jsonrpc, id, method: under 64 bytes).
		if b, err := json.Marshal(p); err == nil {
			if n := len(protocol.UnescapeHTML(b)) + 64; n > i.max {
				return nil, &codemode.ToolError{Message: fmt.Sprintf("nested tool call not sent: its tool.invoke message would be about %d bytes, over the maximum message size of %d bytes (spec/protocol.md §1)", n, i.max)}
			}
		}
	}
	i.mu.Lock()
	srv := i.srv
	i.mu.Unlock()
	defer i.calls.track(p)() // its partial updates are forwarded while it is outstanding (streaming.go)
	// The callback is canceled only after tool.cancel has left: jrpc2
	// forgets a canceled callback's id and would answer the harness's late
	// reply with an error that could collide with one of the harness's own
	// request ids, but sending tool.cancel makes the stray filter drop that
	// reply first (spec/protocol/stray.go). Canceling ends jrpc2's two
	// goroutines of the call at once, not when the peer answers (issue 11).
	type answer struct {
		rsp *jrpc2.Response
		err error
	}
	cbctx, cbcancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cbcancel()
	ch := make(chan answer, 1)
	go func() {
		rsp, err := srv.Callback(cbctx, protocol.MethodToolInvoke, p)
		ch <- answer{rsp, err}
	}()
	var rsp *jrpc2.Response
	var err error
	select {
	case a := <-ch:
		rsp, err = a.rsp, a.err
	case <-ctx.Done():
		// Tell the harness to stop the tool (CM-NEST-08); its late answer is
		// discarded by jrpc2's callback bookkeeping.
		_ = srv.Notify(context.WithoutCancel(ctx), protocol.MethodToolCancel, protocol.CancelParams{Run: p.Run, ToolCallID: p.ToolCallID})
		return nil, &codemode.ToolError{Message: "nested tool call canceled: " + ctx.Err().Error()}
	}
	if err != nil {
		var je *jrpc2.Error
		if errors.As(err, &je) {
			return nil, &codemode.ToolError{Message: je.Message, Data: je.Data}
		}
		return nil, &codemode.ToolError{Message: "tool.invoke failed: " + err.Error()}
	}
	var out protocol.InvokeResult
	if err := rsp.UnmarshalResult(&out); err != nil {
		return nil, &codemode.ToolError{Message: "tool.invoke returned a malformed result: " + err.Error()}
	}
	return out.Result, nil
}

// methods is the driver protocol's method table; shutdown stops the server.
// The declared profile and features come from ro (Options.Features: the
// reference's implemented features that the profile defines; for v1, a
// generation-1 QuickJS-WASI runtime with snapshot-executor and isolation).
func methods(rt *codemode.Runtime, inv *invoker, ro codemode.Options, shutdown func()) handler.Map {
	turns := newTurns(rt, inv)
	ids := &callIDs{replays: ro.HasFeature("nested-activity")} // callids.go
	return handler.Map{
		protocol.MethodInitialize: handler.New(func(ctx context.Context, p protocol.InitializeParams) (protocol.InitializeResult, error) {
			if p.ProtocolVersion != "" && p.ProtocolVersion != protocol.Version {
				return protocol.InitializeResult{}, jrpc2.Errorf(jrpc2.InvalidParams, "unsupported protocol version %q (want %q)", p.ProtocolVersion, protocol.Version)
			}
			return protocol.InitializeResult{ProtocolVersion: protocol.Version,
				Implementation: protocol.Peer{Name: Name, Version: Version + "+quickjs-ng." + engine.Version},
				Features:       ro.Features(), Profile: ro.ProfileName()}, nil
		}),
		protocol.MethodRunPrepare: handler.New(func(ctx context.Context, p protocol.PrepareParams) (protocol.PrepareResult, error) {
			if err := validatePrepare(p); err != nil {
				return protocol.PrepareResult{}, jrpc2.Errorf(jrpc2.InvalidParams, "run.prepare: %v", err)
			}
			if rt.HasRun(p.Run) {
				return protocol.PrepareResult{}, jrpc2.Errorf(jrpc2.InvalidParams, "run.prepare: run %q is already prepared in this session (run.end it first)", p.Run)
			}
			if err := rt.ApplyNamespaces(p.Namespaces); err != nil {
				return protocol.PrepareResult{}, jrpc2.Errorf(jrpc2.InvalidParams, "run.prepare: namespaces: %v", err)
			}
			res := rt.Prepare(p)
			turns.prepared(p, res)
			return res, nil
		}),
		protocol.MethodAgentTurn: handler.New(func(ctx context.Context, p protocol.AgentTurnParams) (protocol.AgentTurnResult, error) {
			if !ro.HasFeature("agent-turn") {
				return protocol.AgentTurnResult{}, jrpc2.Errorf(jrpc2.MethodNotFound, "agent.turn needs the feature agent-turn, which profile %s does not define", ro.ProfileName())
			}
			return turns.turn(ctx, p, ro.HasFeature("fault-injection"))
		}),
		protocol.MethodToolExec: handler.New(func(ctx context.Context, p *protocol.ToolCallParams) (json.RawMessage, error) {
			if err := needRun(protocol.MethodToolExec, p); err != nil {
				return nil, err
			}
			release, err := ids.claim(protocol.MethodToolExec, p, rt.HasRun(p.Run), func() bool { return rt.LiveReplay(p.Run, p.ToolCallID, p.AssistantResponseID) })
			defer release()
			if err != nil {
				return nil, err
			}
			return marshal(rt.TracedIn(p.Run, "exec", p.ToolCallID, p.AssistantResponseID, p.Input, func() (result.Result, error) {
				return rt.ExecIn(ctx, p.Run, p.ToolCallID, p.AssistantResponseID, p.Input)
			}))
		}),
		protocol.MethodToolWait: handler.New(func(ctx context.Context, p *protocol.ToolCallParams) (json.RawMessage, error) {
			if err := needRun(protocol.MethodToolWait, p); err != nil {
				return nil, err
			}
			release, err := ids.claim(protocol.MethodToolWait, p, rt.HasRun(p.Run), nil)
			defer release()
			if err != nil {
				return nil, err
			}
			return marshal(rt.TracedIn(p.Run, "wait", p.ToolCallID, p.AssistantResponseID, p.Input, func() (result.Result, error) { return rt.Wait(ctx, p.Run, p.ToolCallID, p.Input) }))
		}),
		protocol.MethodRunTrajectory: handler.New(func(ctx context.Context, p *protocol.TrajectoryParams) (protocol.TrajectoryResult, error) {
			if err := needRun(protocol.MethodRunTrajectory, p); err != nil {
				return protocol.TrajectoryResult{}, err
			}
			t, ok, err := rt.TrajectoryView(p.Run, p.View, p.Reload) // spec/protocol.md §4.2
			switch {
			case !ok:
				return t, unknownRun(p.Run)
			case err != nil:
				return t, jrpc2.Errorf(jrpc2.InvalidParams, "%s: %v", protocol.MethodRunTrajectory, err)
			}
			return t, nil
		}),
		protocol.MethodRunUpdate: runUpdate(rt, ro), // runupdate.go
		protocol.MethodRunAbort: handler.New(func(ctx context.Context, p *protocol.RunParams) (bool, error) {
			if err := needRun(protocol.MethodRunAbort, p); err != nil {
				return false, err
			}
			turns.cancel(p.Run)
			if !rt.Abort(p.Run) {
				return false, unknownRun(p.Run)
			}
			return true, nil
		}),
		protocol.MethodRunEnd: handler.New(func(ctx context.Context, p *protocol.RunParams) (bool, error) {
			if err := needRun(protocol.MethodRunEnd, p); err != nil {
				return false, err
			}
			turns.ended(p.Run)
			ids.forget(p.Run)
			if !rt.EndRun(ctx, p.Run) { // hook.agentEnd first (§4.2)
				return false, unknownRun(p.Run)
			}
			return true, nil
		}),
		protocol.MethodRuntimeStats: handler.New(func(ctx context.Context, _ *struct{}) (protocol.Stats, error) {
			s := rt.Stats()
			s.RunningVMs, s.WaitingVMs = engine.Running(), engine.Waiting() // run slots are the process's
			return s, nil
		}),
		protocol.MethodShutdown: handler.New(func(ctx context.Context, _ *struct{}) (bool, error) {
			go shutdown()
			return true, nil
		}),
		protocol.MethodToolUpdate: handler.New(inv.forwardUpdate), // a notification (streaming.go)
	}
}

// validatePrepare checks the members spec/protocol.md marks required.
func validatePrepare(p protocol.PrepareParams) error {
	for name, v := range map[string]string{"run": p.Run, "agentId": p.AgentID, "sessionId": p.SessionID,
		"sessionKey": p.SessionKey, "senderId": p.SenderID, "channel": p.Channel} {
		if v == "" {
			return fmt.Errorf("%s must be a non-empty string", name)
		}
		// The run id is echoed in every tool.invoke and the identity in
		// every nested call's context: bounded as toolCallId is (issue 28 nits).
		if len(v) > codemode.MaxCallIDBytes {
			return fmt.Errorf("%s is %d bytes, over the reference's limit of %d", name, len(v), codemode.MaxCallIDBytes)
		}
	}
	if p.Sandbox != nil && !p.Sandbox.Valid() { // CM-NEST-10
		return fmt.Errorf("sandbox.mode %q is not off, non-main or all", p.Sandbox.Mode)
	}
	if p.Tools == nil {
		return errors.New("tools must be an array (possibly empty)")
	}
	if err := validateTools("tools", p.Tools); err != nil {
		return err
	}
	if p.Session != nil {
		if _, err := store.ParseTranscript(p.Session.Transcript); err != nil { // spec/protocol.md §5.7
			return err
		}
	}
	return refmcp.Validate(p.MCPServers) // spec/protocol.md §5.5
}

// validateTools checks the ToolSpecs of member field (run.prepare tools,
// run.update replaceTools and attachClientTools).
func validateTools(field string, tools []protocol.ToolSpec) error {
	for i, t := range tools {
		switch {
		case t.Name == "":
			return fmt.Errorf("%s[%d]: name must be non-empty", field, i)
		case t.Owner == "":
			return fmt.Errorf("%s[%d] (%s): owner must be non-empty", field, i, t.Name)
		case t.Source != protocol.SourceOpenClaw && t.Source != protocol.SourcePlugin && t.Source != protocol.SourceMCP && t.Source != protocol.SourceClient:
			return fmt.Errorf("%s[%d] (%s): source %q is not openclaw, plugin, mcp or client", field, i, t.Name, t.Source)
		case !t.ExecutionMode.Valid():
			return fmt.Errorf("%s[%d] (%s): executionMode %q is not sequential or parallel", field, i, t.Name, t.ExecutionMode)
		case !t.ResultContentSource.Valid():
			return fmt.Errorf("%s[%d] (%s): resultContentSource %q is not network", field, i, t.Name, t.ResultContentSource)
		}
	}
	return nil
}

// needRun checks the params of a method that names a run: present, with
// run a non-empty string (-32602 otherwise; -32001 is for a run that was
// named but is not known).
func needRun[P protocol.ToolCallParams | protocol.RunParams | protocol.TrajectoryParams](method string, p *P) error {
	if p == nil {
		return jrpc2.Errorf(jrpc2.InvalidParams, "%s: params must be an object with run", method)
	}
	var run string
	switch v := any(p).(type) {
	case *protocol.ToolCallParams:
		run = v.Run
	case *protocol.RunParams:
		run = v.Run
	case *protocol.TrajectoryParams:
		run = v.Run
	}
	if run == "" {
		return jrpc2.Errorf(jrpc2.InvalidParams, "%s: run must be a non-empty string", method)
	}
	return nil
}

func unknownRun(run string) error {
	return &jrpc2.Error{Code: protocol.ErrUnknownRun, Message: fmt.Sprintf("unknown run %q", run)}
}

func marshal(r any, err error) (json.RawMessage, error) {
	if errors.Is(err, codemode.ErrUnknownRun) {
		return nil, &jrpc2.Error{Code: protocol.ErrUnknownRun, Message: err.Error()}
	}
	if err != nil {
		return nil, jrpc2.Errorf(jrpc2.InvalidRequest, "%v", err)
	}
	return json.Marshal(r)
}
