package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/google/go-cmp/cmp"
)

// TestToolCallIDs: an empty toolCallId and one the run already used are
// invalid params (-32602) on tool.exec and tool.wait; the run keeps serving
// fresh ids, and run.end forgets the used ones (spec/protocol.md §3).
func TestToolCallIDs(t *testing.T) {
	s := newLineSession(t)
	prep := func(id int) {
		s.call(id, "run.prepare", map[string]any{"run": "r", "agentId": "a", "sessionId": "s", "sessionKey": "k", "senderId": "x", "channel": "c",
			"codeMode": true, "tools": []any{map[string]any{"name": "echo", "description": "d", "source": "openclaw", "owner": "core"}}}, nil)
	}
	// code describes an answer: its error code, or 0 for a result.
	code := func(m map[string]any) int {
		if e, ok := m["error"].(map[string]any); ok {
			n, _ := e["code"].(float64)
			return int(n)
		}
		return 0
	}
	exec := func(id int, method, callID string) int {
		in := map[string]any{"code": "return 1"}
		if method == "tool.wait" {
			in = map[string]any{"runId": "cm_none"}
		}
		return code(s.call(id, method, map[string]any{"run": "r", "toolCallId": callID, "input": in}, nil))
	}
	prep(1)
	got := map[string]int{
		"exec, empty id":           exec(2, "tool.exec", ""),
		"wait, empty id":           exec(3, "tool.wait", ""),
		"exec, fresh id":           exec(4, "tool.exec", "call-1"),
		"exec, same id again":      exec(5, "tool.exec", "call-1"),
		"wait, an exec's id":       exec(6, "tool.wait", "call-1"),
		"wait, fresh id":           exec(7, "tool.wait", "call-2"),
		"wait, same id again":      exec(8, "tool.wait", "call-2"),
		"exec, unknown run, empty": code(s.call(9, "tool.exec", map[string]any{"run": "nope", "toolCallId": "", "input": map[string]any{}}, nil)),
		"exec, unknown run":        code(s.call(10, "tool.exec", map[string]any{"run": "nope", "toolCallId": "call-1", "input": map[string]any{}}, nil)),
		"exec, id over 1 KiB":      exec(14, "tool.exec", strings.Repeat("i", 1025)),
		"exec, id of 1 KiB":        exec(15, "tool.exec", strings.Repeat("i", 1024)),
		"exec, response id over 1 KiB": code(s.call(16, "tool.exec", map[string]any{"run": "r", "toolCallId": "call-9",
			"assistantResponseId": strings.Repeat("r", 1025), "input": map[string]any{"code": "return 1"}}, nil)),
	}
	s.call(11, "run.end", map[string]any{"run": "r"}, nil)
	prep(12)
	got["exec, id of an ended run's call"] = exec(13, "tool.exec", "call-1")
	want := map[string]int{
		"exec, empty id": -32602, "wait, empty id": -32602,
		"exec, fresh id": 0, "exec, same id again": -32602, "wait, an exec's id": -32602,
		"wait, fresh id": 0, "wait, same id again": -32602,
		"exec, unknown run, empty": -32602, "exec, unknown run": -32001,
		"exec, id of an ended run's call": 0,
		"exec, id over 1 KiB":             -32602, "exec, id of 1 KiB": 0, "exec, response id over 1 KiB": -32602,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("answers to tool.exec/tool.wait by toolCallId (0: a result; -want +got):\n%s", d)
	}
}

// TestReplayInFlightRefused: under nested-activity a repeat of an
// (assistantResponseId, toolCallId) pair while a call of the pair is in
// flight, or while the cell its exec started is live, is invalid params; once
// released the pair may be replayed (spec/protocol.md §3, §4.2).
func TestReplayInFlightRefused(t *testing.T) {
	c := &callIDs{replays: true}
	p := &protocol.ToolCallParams{Run: "r", ToolCallID: "call_1", AssistantResponseID: "resp-1"}
	release, err := c.claim("tool.exec", p, true, nil)
	if err != nil {
		t.Fatalf("first claim: %v", err)
	}
	if _, err := c.claim("tool.exec", p, true, nil); err == nil || !strings.Contains(err.Error(), "still in flight") {
		t.Errorf("repeat while in flight: %v, want -32602 still in flight", err)
	}
	other := &protocol.ToolCallParams{Run: "r", ToolCallID: "call_1", AssistantResponseID: "resp-2"}
	if r2, err := c.claim("tool.exec", other, true, nil); err != nil {
		t.Errorf("same call id in another response: %v, want accepted", err)
	} else {
		r2()
	}
	release()
	if _, err := c.claim("tool.exec", p, true, func() bool { return true }); err == nil {
		t.Errorf("repeat while the first call's cell is live: accepted, want -32602")
	}
	r3, err := c.claim("tool.exec", p, true, func() bool { return false })
	if err != nil {
		t.Errorf("replay after the first call ended: %v, want accepted", err)
	}
	r3()
}

// TestRunCallIDsBounded: a run's used-id set is bounded: past maxRunCallIDs
// calls, tool.exec/tool.wait of the run is invalid params with a clear
// message, other runs unaffected, and run.end frees it.
func TestRunCallIDsBounded(t *testing.T) {
	c := &callIDs{}
	for i := 0; i < maxRunCallIDs; i++ {
		if _, err := c.claim("tool.exec", &protocol.ToolCallParams{Run: "r", ToolCallID: fmt.Sprint(i)}, true, nil); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	_, err := c.claim("tool.exec", &protocol.ToolCallParams{Run: "r", ToolCallID: "one more"}, true, nil)
	if err == nil || !strings.Contains(err.Error(), "end the run and prepare another") {
		t.Errorf("call past the bound: %v, want -32602 saying to end the run", err)
	}
	if _, err := c.claim("tool.exec", &protocol.ToolCallParams{Run: "other", ToolCallID: "1"}, true, nil); err != nil {
		t.Errorf("another run: %v, want accepted", err)
	}
	c.forget("r")
	if _, err := c.claim("tool.exec", &protocol.ToolCallParams{Run: "r", ToolCallID: "one more"}, true, nil); err != nil {
		t.Errorf("after run.end: %v, want accepted", err)
	}
}
