package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/onsi/gomega"
)

// A turn waiting on a provider that never ends its stream stops at
// run.end: it fails with provider_error at once instead of holding the
// request for the provider timeout (2 min per request, up to 64 requests)
// against a run that is gone; runtime.stats answers meanwhile.
func TestTurnStopsAtRunEnd(t *testing.T) {
	g := gomega.NewWithT(t)
	prov := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for {
			if _, err := fmt.Fprint(w, ": still thinking\n\n"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}))
	t.Cleanup(prov.Close)
	s := newLineSessionWith(t, Options{Runtime: codemode.Options{Profile: "v2"}})
	var invokes []map[string]any
	s.call(1, "initialize", map[string]any{"protocolVersion": "2"}, &invokes)
	r := s.call(2, "run.prepare", map[string]any{"run": "T", "agentId": "a", "sessionId": "s", "sessionKey": "k", "senderId": "x", "channel": "c",
		"codeMode": map[string]any{"enabled": true}, "tools": []any{}}, &invokes)
	g.Expect(r["result"]).NotTo(gomega.BeNil(), "run.prepare: %v", r)
	s.send(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "agent.turn", "params": map[string]any{"run": "T", "user": "u", "message": "hi",
		"provider": map[string]any{"baseUrl": prov.URL, "model": "m"}}})
	time.Sleep(100 * time.Millisecond) // the turn is reading the stream
	st := s.call(4, "runtime.stats", nil, &invokes)
	g.Expect(st["result"]).NotTo(gomega.BeNil(), "runtime.stats answers while a turn waits on its provider: %v", st)
	s.send(map[string]any{"jsonrpc": "2.0", "id": 5, "method": "run.end", "params": map[string]any{"run": "T"}})
	start := time.Now()
	var turn map[string]any
	for m := range s.lines {
		if m["id"] == 3.0 {
			turn = m
			break
		}
	}
	g.Expect(time.Since(start)).To(gomega.BeNumerically("<", 5*time.Second), "the turn must end soon after run.end")
	res, _ := turn["result"].(map[string]any)
	g.Expect(res).To(gomega.HaveKeyWithValue("status", "failed"), "the turn: %v", turn)
	g.Expect(res).To(gomega.HaveKeyWithValue("code", "provider_error"), "the turn: %v", turn)
}
