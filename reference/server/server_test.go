package server

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/creachadair/jrpc2"
)

// serve starts the reference (with no engine: these checks never need one)
// and returns a client.
func serve(t *testing.T) *jrpc2.Client {
	t.Helper()
	hr, tw := io.Pipe()
	tr, hw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), tr, tw, Options{Unavailable: true}) }()
	c := protocol.NewClient(protocol.NewChannel(hr, hw), nil, nil)
	t.Cleanup(func() { c.Close(); hw.Close(); <-done })
	return c
}

func TestPrepareRejectsMalformedParams(t *testing.T) {
	c := serve(t)
	ok := func() map[string]any {
		return map[string]any{"run": "r1", "agentId": "a", "sessionId": "s", "sessionKey": "k", "senderId": "x", "channel": "c",
			"tools": []any{map[string]any{"name": "echo", "description": "d", "source": "openclaw", "owner": "core"}}}
	}
	cases := map[string]func(p map[string]any){
		"empty run":        func(p map[string]any) { p["run"] = "" },
		"no sessionId":     func(p map[string]any) { delete(p, "sessionId") },
		"no tools":         func(p map[string]any) { delete(p, "tools") },
		"unknown source":   func(p map[string]any) { p["tools"].([]any)[0].(map[string]any)["source"] = "weird" },
		"tool has no name": func(p map[string]any) { p["tools"].([]any)[0].(map[string]any)["name"] = "" },
		"tool has no owner": func(p map[string]any) {
			delete(p["tools"].([]any)[0].(map[string]any), "owner")
		},
	}
	for name, edit := range cases {
		p := ok()
		edit(p)
		_, err := c.Call(context.Background(), protocol.MethodRunPrepare, p)
		var je *jrpc2.Error
		if !errors.As(err, &je) || je.Code != jrpc2.InvalidParams {
			t.Errorf("%s: got %v, want a -32602 error", name, err)
		}
	}
	if _, err := c.Call(context.Background(), protocol.MethodRunPrepare, ok()); err != nil {
		t.Fatalf("valid run.prepare: %v", err)
	}
	_, err := c.Call(context.Background(), protocol.MethodRunPrepare, ok())
	if err == nil || !strings.Contains(err.Error(), "already prepared") {
		t.Errorf("re-preparing a live run: got %v, want an already-prepared error", err)
	}
	if _, err := c.Call(context.Background(), protocol.MethodRunEnd, map[string]any{"run": "r1"}); err != nil {
		t.Fatalf("run.end: %v", err)
	}
	if _, err := c.Call(context.Background(), protocol.MethodRunPrepare, ok()); err != nil {
		t.Errorf("preparing an ended run id again: %v", err)
	}
}
