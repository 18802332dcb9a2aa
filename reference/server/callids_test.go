package server

import (
	"testing"

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
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("answers to tool.exec/tool.wait by toolCallId (0: a result; -want +got):\n%s", d)
	}
}
