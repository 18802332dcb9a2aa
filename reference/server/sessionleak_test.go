package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/onsi/gomega"
)

// Nothing of a session outlives it (issue 28 N1): serve --listen passes the
// process's context to every session's Serve, so 1,000 sessions opened and
// closed under one live context must leave the goroutine count and the heap
// where they were (before the fix each left a goroutine waiting on that
// context, holding its session: 600 sessions left 608 goroutines and grew
// the heap from 2.7 to 53.6 MB).
func TestClosedSessionsLeaveNothingBehind(t *testing.T) {
	g := gomega.NewWithT(t)
	eng, err := engine.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	process, cancel := context.WithCancel(context.Background()) // lives for the whole test, as serve --listen's
	defer cancel()
	session := func() {
		hr, tw := io.Pipe()
		tr, hw := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- Serve(process, tr, tw, Options{Engine: eng}) }()
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": "1"}})
		go func() { _, _ = hw.Write(append(b, '\n')) }()
		sc := bufio.NewScanner(hr)
		g.Expect(sc.Scan()).To(gomega.BeTrue(), "initialize must be answered")
		hw.Close() // the peer disconnects
		go func() { _, _ = io.Copy(io.Discard, hr) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("Serve did not return after the peer disconnected")
		}
	}
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for range 20 { // warm: pools, the engine's caches
		session()
	}
	baseG, baseH := runtime.NumGoroutine(), heap()
	const n = 1000
	for range n {
		session()
	}
	g.Eventually(runtime.NumGoroutine).WithTimeout(10*time.Second).Should(gomega.BeNumerically("<=", baseG+2),
		"%d closed sessions must not leave goroutines behind (baseline %d)", n, baseG)
	g.Eventually(heap).WithTimeout(10*time.Second).Should(gomega.BeNumerically("<", baseH+8<<20),
		"%d closed sessions must give their heap back (baseline %d bytes; the leak was about 85 KB a session)", n, baseH)
}
