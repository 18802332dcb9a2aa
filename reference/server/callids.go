package server

import (
	"sync"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/creachadair/jrpc2"
)

// callIDs keeps the toolCallIds each prepared run's tool.exec and tool.wait
// used: a toolCallId identifies one model call within a run (spec/protocol.md
// §3 "tool.exec and tool.wait"), and the trajectory rows and the
// parentToolCallId of nested calls are keyed by it, so an empty or repeated
// one is invalid params (-32602). Under a profile that declares
// nested-activity (replays) a call is keyed by assistantResponseId and
// toolCallId, and a repeated pair is the replay §4.2 defines, so only an
// empty id is refused there.
type callIDs struct {
	replays bool
	mu      sync.Mutex
	used    map[string]map[string]bool // run → toolCallId → used
}

// claim records p.ToolCallID for p.Run, or says why it is invalid: empty, or
// already used by an earlier tool.exec/tool.wait of the run. Only runs the
// runtime holds are recorded (known); an unknown run gets -32001 later.
func (c *callIDs) claim(method string, p *protocol.ToolCallParams, known bool) error {
	if p.ToolCallID == "" {
		return jrpc2.Errorf(jrpc2.InvalidParams, "%s: toolCallId must be a non-empty string", method)
	}
	if !known || c.replays {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.used[p.Run][p.ToolCallID] {
		return jrpc2.Errorf(jrpc2.InvalidParams, "%s: toolCallId %q was already used in run %q: each exec/wait call of a run needs its own id", method, p.ToolCallID, p.Run)
	}
	if c.used == nil {
		c.used = map[string]map[string]bool{}
	}
	if c.used[p.Run] == nil {
		c.used[p.Run] = map[string]bool{}
	}
	c.used[p.Run][p.ToolCallID] = true
	return nil
}

// forget drops the ids of run (run.end).
func (c *callIDs) forget(run string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.used, run)
}
