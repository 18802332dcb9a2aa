package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/onsi/gomega"
)

// lineSession is a raw session with the reference: the test writes lines and
// reads every line the target sends, so nothing on the harness side holds
// goroutines per call.
type lineSession struct {
	t     *testing.T
	w     io.WriteCloser
	lines chan map[string]any
}

func newLineSession(t *testing.T) *lineSession {
	t.Helper()
	return newLineSessionWith(t, Options{})
}

// newLineSessionWith serves opts (its Engine set to a fresh engine).
func newLineSessionWith(t *testing.T, opts Options) *lineSession {
	t.Helper()
	eng, err := engine.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	opts.Engine = eng
	hr, tw := io.Pipe()
	tr, hw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), tr, tw, opts) }()
	s := &lineSession{t: t, w: hw, lines: make(chan map[string]any, 1024)}
	go func() {
		sc := bufio.NewScanner(hr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			_ = json.Unmarshal(sc.Bytes(), &m)
			s.lines <- m
		}
		close(s.lines)
	}()
	t.Cleanup(func() { hw.Close(); <-done; eng.Close(context.Background()) })
	return s
}

func (s *lineSession) send(m map[string]any) {
	b, _ := json.Marshal(m)
	if _, err := s.w.Write(append(b, '\n')); err != nil {
		s.t.Fatal(err)
	}
}

// call sends a request and returns its answer; tool.invoke requests read on
// the way are collected in invokes.
func (s *lineSession) call(id int, method string, params any, invokes *[]map[string]any) map[string]any {
	s.t.Helper()
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("%s: the target closed the session", method)
			}
			switch {
			case m["method"] == "tool.invoke":
				*invokes = append(*invokes, m)
			case m["method"] != nil: // tool.cancel
			case m["id"] == float64(id):
				return m
			default:
				s.t.Fatalf("%s: unexpected line %v", method, m)
			}
		case <-timeout:
			s.t.Fatalf("%s: no answer within 30 s", method)
		}
	}
}

// A tool.invoke the harness never answers leaves nothing behind once its run
// ends: jrpc2's goroutines of the call and the stray filter's entry go at
// run.end, not when (if ever) the peer answers; the late answer is then
// dropped without a reply (issue 11: 500 run.ends left 1000 goroutines).
func TestUnansweredInvokeLeavesNothingAfterRunEnd(t *testing.T) {
	g := gomega.NewWithT(t)
	s := newLineSession(t)
	var invokes []map[string]any
	s.call(1, "initialize", map[string]any{"protocolVersion": "1"}, &invokes)
	prepare := func(id int, run string) {
		r := s.call(id, "run.prepare", map[string]any{"run": run, "agentId": "a", "sessionId": "s", "sessionKey": "k", "senderId": "x", "channel": "c",
			"codeMode": map[string]any{"enabled": true, "timeoutMs": 400},
			"tools":    []any{map[string]any{"name": "never", "description": "never answers", "source": "openclaw", "owner": "core"}}}, &invokes)
		g.Expect(r["result"]).To(gomega.HaveKeyWithValue("codeModeActive", true), "run.prepare %s: %v", run, r)
	}
	cycle := func(base, i int) {
		run := fmt.Sprint("L", i)
		prepare(base, run)
		r := s.call(base+1, "tool.exec", map[string]any{"run": run, "toolCallId": "x", "input": map[string]any{"code": `return await tools.call(ALL_TOOLS[0].id, {});`}}, &invokes)
		g.Expect(r["result"]).To(gomega.HaveKeyWithValue("status", "waiting"), "the cell awaits the unanswered call: %v", r)
		r = s.call(base+2, "run.end", map[string]any{"run": run}, &invokes)
		g.Expect(r["result"]).To(gomega.Equal(true), "run.end: %v", r)
	}
	cycle(10, 0) // warm: the template, the engine's pools
	base := runtime.NumGoroutine()
	const n = 40
	for i := 1; i <= n; i++ {
		cycle(100+10*i, i)
	}
	g.Eventually(runtime.NumGoroutine).WithTimeout(10*time.Second).Should(gomega.BeNumerically("<=", base+2),
		"%d run.ends with an unanswered tool.invoke each must not leave goroutines behind (baseline %d)", n, base)
	g.Expect(invokes).To(gomega.HaveLen(n+1), "one tool.invoke per cell")
	// The late answers are dropped, never answered: the next line the
	// target sends is runtime.stats's result.
	for _, m := range invokes {
		s.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": map[string]any{"result": "late"}})
	}
	r := s.call(9999, "runtime.stats", nil, &invokes)
	g.Expect(r).To(gomega.HaveKey("result"), "runtime.stats after the late answers: %v", r)
	select {
	case m := <-s.lines:
		t.Fatalf("the target answered a late tool.invoke reply: %v", m)
	case <-time.After(200 * time.Millisecond):
	}
}
