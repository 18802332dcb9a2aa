package framework

import (
	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// ServedRun is a run whose nested tool calls the harness answers outside a
// spec. NewRun does this for specs; callers that drive runs themselves (the
// bench command) use it directly, and must report each exec/wait with Begin
// and Finish: the harness refuses a tool.invoke that is not nested in an
// outstanding exec/wait or in a suspended cell of the run (CM-GUEST-05,
// CM-SEC-05), exactly as it does for specs.
type ServedRun struct {
	t   *Target
	run string
}

// ServeTools answers the target's tool.invoke calls for the run p prepares
// from set, and its tool.cancel notifications, until End is called. Call it
// before sending run.prepare.
func (t *Target) ServeTools(p protocol.PrepareParams, set *tools.Set) *ServedRun {
	t.router.add(p.Run, p, set)
	return &ServedRun{t: t, run: p.Run}
}

// Begin records an exec (cell "") or a wait on cell about to be sent with
// toolCallId call. Call it before the request is written.
func (s *ServedRun) Begin(call, cell string) { s.t.router.begin(s.run, call, cell) }

// Finish records the answer to a call begun with Begin; res is nil when the
// call failed at the protocol level.
func (s *ServedRun) Finish(call, cell string, res *result.Result) {
	s.t.router.finish(s.run, call, cell, res)
}

// End stops answering the run's tools: later nested calls are refused.
func (s *ServedRun) End() { s.t.router.end(s.run) }

// Refused lists every tool.invoke the target's harness side refused so far,
// in every run (at most a bounded number).
func (t *Target) Refused() []RefusedInvoke { return t.router.Refused() }
