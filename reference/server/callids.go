package server

import (
	"sync"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/creachadair/jrpc2"
)

// callIDs keeps the toolCallIds each prepared run's tool.exec and tool.wait
// used: a toolCallId identifies one model call within a run (spec/protocol.md
// §3 "tool.exec and tool.wait"), and the trajectory rows and the
// parentToolCallId of nested calls are keyed by it, so an empty or repeated
// one is invalid params (-32602). Under a profile that declares
// nested-activity (replays) a call is keyed by assistantResponseId and
// toolCallId, and a repeated pair is the replay §4.2 defines once the first
// call was answered; a repeat while a call of the pair is still in flight
// is refused (two in-flight calls would share their nested ids).
// maxRunCallIDs bounds the toolCallIds one run may use (spec/protocol.md
// §3): with ids of at most MaxCallIDBytes a run's used set stays within
// 16 MiB.
const maxRunCallIDs = 16384

type callIDs struct {
	replays bool
	mu      sync.Mutex
	used    map[string]map[string]bool // run → toolCallId → used
	busy    map[[3]string]bool         // replays: [run, assistantResponseId, toolCallId] in flight
}

// claim records p.ToolCallID for p.Run, or says why it is invalid: empty, or
// already used by an earlier tool.exec/tool.wait of the run (replays: a
// call of the same pair still in flight, or live reports that the cell an
// exec of the pair started is still running or waiting). Only runs the
// runtime holds are recorded (known); an unknown run gets -32001 later.
// release, never nil, ends the claim once the call was answered.
func (c *callIDs) claim(method string, p *protocol.ToolCallParams, known bool, live func() bool) (release func(), err error) {
	if p.ToolCallID == "" {
		return func() {}, jrpc2.Errorf(jrpc2.InvalidParams, "%s: toolCallId must be a non-empty string", method)
	}
	if len(p.ToolCallID) > codemode.MaxCallIDBytes || len(p.AssistantResponseID) > codemode.MaxCallIDBytes {
		return func() {}, jrpc2.Errorf(jrpc2.InvalidParams, "%s: toolCallId (%d bytes) and assistantResponseId (%d bytes) may have at most %d bytes each",
			method, len(p.ToolCallID), len(p.AssistantResponseID), codemode.MaxCallIDBytes)
	}
	if !known {
		return func() {}, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.replays {
		k := [3]string{p.Run, p.AssistantResponseID, p.ToolCallID}
		if c.busy[k] || (live != nil && live()) {
			return func() {}, jrpc2.Errorf(jrpc2.InvalidParams, "%s: toolCallId %q of assistant response %q is still in flight in run %q (its call unanswered or its cell not ended): a replay must come after the first call ended, or the two would share their nested call ids", method, p.ToolCallID, p.AssistantResponseID, p.Run)
		}
		if c.busy == nil {
			c.busy = map[[3]string]bool{}
		}
		c.busy[k] = true
		return func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			delete(c.busy, k)
		}, nil
	}
	if len(c.used[p.Run]) >= maxRunCallIDs {
		return func() {}, jrpc2.Errorf(jrpc2.InvalidParams, "%s: run %q already made %d exec/wait calls, the most one run may (each call id is kept to refuse repeats); end the run and prepare another", method, p.Run, maxRunCallIDs)
	}
	if c.used[p.Run][p.ToolCallID] {
		return func() {}, jrpc2.Errorf(jrpc2.InvalidParams, "%s: toolCallId %q was already used in run %q: each exec/wait call of a run needs its own id", method, p.ToolCallID, p.Run)
	}
	if c.used == nil {
		c.used = map[string]map[string]bool{}
	}
	if c.used[p.Run] == nil {
		c.used[p.Run] = map[string]bool{}
	}
	c.used[p.Run][p.ToolCallID] = true
	return func() {}, nil
}

// forget drops the ids of run (run.end).
func (c *callIDs) forget(run string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.used, run)
}
