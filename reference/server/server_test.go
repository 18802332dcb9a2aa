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
	c := protocol.NewClient(protocol.NewChannel(hr, hw), nil, nil, nil)
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
		"unknown resultContentSource": func(p map[string]any) {
			p["tools"].([]any)[0].(map[string]any)["resultContentSource"] = "web"
		},
		"unknown sandbox mode": func(p map[string]any) { p["sandbox"] = map[string]any{"mode": "docker"} }, // CM-NEST-10
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

// A response that answers nothing is dropped, never answered (protocol §1):
// an error reply would carry an id the harness may be using.
func TestStrayResponsesAreDropped(t *testing.T) {
	hr, tw := io.Pipe()
	tr, hw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), tr, tw, Options{Unavailable: true}) }()
	defer func() { hw.Close(); <-done }()
	lines := make(chan string, 16)
	go func() {
		buf := make([]byte, 1<<16)
		var acc []byte
		for {
			n, err := hr.Read(buf)
			acc = append(acc, buf[:n]...)
			for {
				i := strings.IndexByte(string(acc), '\n')
				if i < 0 {
					break
				}
				lines <- string(acc[:i])
				acc = acc[i+1:]
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	write := func(s string) {
		if _, err := hw.Write([]byte(s + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"jsonrpc":"2.0","id":7,"result":{"result":1}}`)
	write(`{"jsonrpc":"2.0","id":7,"error":{"code":-32010,"message":"late"}}`)
	write(`{"jsonrpc":"2.0","id":7,"method":"runtime.stats"}`)
	write(`{"jsonrpc":"2.0","id":8,"method":"runtime.stats"}`)
	var all []string
	answered := 0
	for l := range lines {
		all = append(all, l)
		if strings.Contains(l, `"result":{"liveVMs"`) {
			if answered++; answered == 2 {
				hw.Close() // both requests answered: end the session
			}
		}
	}
	if len(all) != 2 {
		t.Fatalf("the target sent %d lines, want only the two runtime.stats results (stray responses get no reply):\n%s", len(all), strings.Join(all, "\n"))
	}
	for _, l := range all {
		if strings.Contains(l, `"error"`) {
			t.Fatalf("the target answered a stray response: %s", l)
		}
	}
}
