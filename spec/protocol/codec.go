package protocol

import (
	"context"
	"encoding/json"
	"math"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/creachadair/jrpc2/handler"
)

// ServerOptions are the options a target's server uses: push (server → client
// requests) enabled for tool.invoke, and no built-in rpc.* methods (reserved
// names answer -32601).
//
// The wire does not bound how many handlers run at once: jrpc2 starts a
// goroutine per request anyway, and a bound shared by all methods made
// runtime.stats, run.abort and run.end wait behind busy exec/wait calls (§1:
// a slow exec MUST NOT delay other requests; with 128 spinning cells stats
// took 28 s). What bounds live VMs and suspended runs is the runtime's own
// admission (reference/codemode); what bounds memory per message is the
// channel (LineChannel).
func ServerOptions() *jrpc2.ServerOptions {
	return &jrpc2.ServerOptions{AllowPush: true, Concurrency: math.MaxInt32, DisableBuiltin: true}
}

// NewServer starts a target-side server on ch with the given method table.
// Malformed and oversized messages are answered as guardServer says.
// Stop it with the returned stop function (safe to call more than once and
// from any goroutine, including a handler), never with the server's own
// Stop: see stoppable. Wait on the server for it to finish.
func NewServer(methods handler.Map, ch channel.Channel) (srv *jrpc2.Server, stop func()) {
	st := newStoppable(dropStray(guardServer(ch)))
	return jrpc2.NewServer(methods, ServerOptions()).Start(st), st.stop
}

// InvokeFunc answers a tool.invoke from the target: it returns the tool's JSON
// result or an error (a *jrpc2.Error with ErrToolFailed reaches the guest).
type InvokeFunc func(ctx context.Context, p InvokeParams) (json.RawMessage, error)

// CancelFunc handles a tool.cancel notification from the target.
type CancelFunc func(p CancelParams)

// NewClient starts a harness-side client on ch; invoke answers tool.invoke
// callbacks (concurrently) whose params pass CheckInvokeParams (others get
// -32602, methods other than tool.invoke -32601) and cancel receives tool.cancel notifications
// (malformed ones and other notifications are dropped).
//
// logf, if not nil, receives the client's own log lines (decoding errors,
// responses to unknown ids), which explain a misbehaving target.
//
// gates, if given, answers hook.beforeToolCall and approval.request (hooks.go),
// and receives tool.progress notifications if it is a ProgressSink
// (streaming.go).
func NewClient(ch channel.Channel, invoke InvokeFunc, cancel CancelFunc, logf func(string), gates ...Gates) *jrpc2.Client {
	return jrpc2.NewClient(ch, &jrpc2.ClientOptions{
		Logger: jrpc2.Logger(logf),
		OnNotify: func(req *jrpc2.Request) {
			if req.Method() == MethodToolProgress { // streaming.go
				var p ProgressParams
				if sink, ok := firstGates(gates).(ProgressSink); ok && req.UnmarshalParams(&p) == nil {
					sink.Progress(p)
				}
				return
			}
			var p CancelParams
			if req.Method() != MethodToolCancel || cancel == nil || req.UnmarshalParams(&p) != nil {
				return
			}
			cancel(p)
		},
		OnCallback: func(ctx context.Context, req *jrpc2.Request) (any, error) {
			if len(gates) > 0 && gates[0] != nil {
				if v, ok, err := answerGate(ctx, req, gates[0]); ok {
					return v, err
				}
			}
			if req.Method() != MethodToolInvoke {
				return nil, jrpc2.Errorf(jrpc2.MethodNotFound, "harness does not serve %q", req.Method())
			}
			var raw json.RawMessage
			if err := req.UnmarshalParams(&raw); err != nil {
				return nil, jrpc2.Errorf(jrpc2.InvalidParams, "tool.invoke: %v", err)
			}
			p, err := CheckInvokeParams(raw)
			if err != nil {
				return nil, err
			}
			res, err := invoke(ctx, p)
			if err != nil {
				return nil, err
			}
			return InvokeResult{Result: res}, nil
		},
	})
}

// firstGates is NewClient's optional Gates, or nil.
func firstGates(gates []Gates) Gates {
	if len(gates) == 0 {
		return nil
	}
	return gates[0]
}

// ToolError builds the tool.invoke error for a tool that threw: message and
// optional JSON data both reach the guest as plain data.
func ToolError(message string, data any) error {
	e := &jrpc2.Error{Code: ErrToolFailed, Message: message}
	if data != nil {
		if b, err := json.Marshal(data); err == nil {
			e.Data = b
		}
	}
	return e
}
