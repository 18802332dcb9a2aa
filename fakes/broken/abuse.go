package broken

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// The variants of this file break the protocol-abuse specs (suites/abuse,
// issue 11): each is the reference behind a proxy that does what a careless
// implementation of the driver protocol does.

func forwardToHarness(l lines, b []byte) { l.toHarness(b) }

// controlBehindCells holds runtime.stats and run.abort while any tool.exec
// or tool.wait of the connection is unanswered, as a target that serves
// requests from one queue would (CM-PROT-03): behind a cell that spins, a
// control request waits for the cell's deadline.
func controlBehindCells() serveFunc {
	return func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
		var mu sync.Mutex
		busy := map[string]bool{} // ids of unanswered exec/wait requests
		var held [][]byte
		return lineProxy(func(l lines, b []byte) {
			var m rpc
			_ = json.Unmarshal(b, &m)
			mu.Lock()
			switch {
			case len(m.ID) > 0 && (m.Method == protocol.MethodToolExec || m.Method == protocol.MethodToolWait):
				busy[string(m.ID)] = true
			case len(busy) > 0 && (m.Method == protocol.MethodRuntimeStats || m.Method == protocol.MethodRunAbort):
				held = append(held, b)
				mu.Unlock()
				return
			}
			mu.Unlock()
			l.toReference(b)
		}, func(l lines, b []byte) {
			l.toHarness(b)
			var m rpc
			if json.Unmarshal(b, &m) != nil || m.Method != "" || len(m.ID) == 0 {
				return
			}
			mu.Lock()
			delete(busy, string(m.ID))
			var release [][]byte
			if len(busy) == 0 {
				release, held = held, nil
			}
			mu.Unlock()
			for _, h := range release {
				l.toReference(h)
			}
		})(ctx, eng, r, w)
	}
}

// parseErrorForNonObjects answers a line that is valid JSON but not an
// object (42, "s", []) with -32700 Parse error, id null, as a target that
// decodes every line straight into its request struct would (CM-PROT-04
// wants -32600 Invalid Request).
func parseErrorForNonObjects() serveFunc {
	return lineProxy(func(l lines, b []byte) {
		t := bytes.TrimSpace(b)
		var v any
		if len(t) > 0 && t[0] != '{' && json.Unmarshal(t, &v) == nil {
			l.toHarness([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`))
			return
		}
		l.toReference(b)
	}, forwardToHarness)
}

// abortAnsweredOnly answers run.abort and run.end with true and never
// tells the runtime, as a target whose abort only flags the run for the
// cell's next await would: a cell in synchronous code runs on to its
// deadline and ends with timeout (CM-RUN-09).
func abortAnsweredOnly() serveFunc {
	return lineProxy(func(l lines, b []byte) {
		var m rpc
		if json.Unmarshal(b, &m) == nil && (m.Method == protocol.MethodRunAbort || m.Method == protocol.MethodRunEnd) && len(m.ID) > 0 {
			l.toHarness([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":true}`))
			return
		}
		l.toReference(b)
	}, forwardToHarness)
}

// notificationsAnswered answers every notification with -32601, id null,
// as a target that replies to whatever it reads would (CM-PROT-02: a
// notification gets no answer), and passes it on.
func notificationsAnswered() serveFunc {
	return lineProxy(func(l lines, b []byte) {
		var m rpc
		if json.Unmarshal(b, &m) == nil && m.Method != "" && len(m.ID) == 0 {
			l.toHarness([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"method not found"}}`))
		}
		l.toReference(b)
	}, forwardToHarness)
}

// oversizedRun runs a message over 16 MiB with its long strings cut to
// 1 KiB, as a target without a bound on message size runs whatever it is
// sent (CM-PROT-01); the reference behind it never sees the oversized line.
func oversizedRun() serveFunc {
	return lineProxy(func(l lines, b []byte) {
		if len(b) <= 16<<20 {
			l.toReference(b)
			return
		}
		var v any
		if json.Unmarshal(b, &v) != nil {
			l.toReference(b)
			return
		}
		cut, _ := json.Marshal(cutStrings(v))
		l.toReference(cut)
	}, forwardToHarness)
}

// cutStrings returns v with every string longer than 1 KiB cut to 1 KiB.
func cutStrings(v any) any {
	switch v := v.(type) {
	case string:
		if len(v) > 1024 {
			return v[:1024]
		}
	case []any:
		for i := range v {
			v[i] = cutStrings(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = cutStrings(v[k])
		}
	}
	return v
}

// crashAfterRequests dies (the connection closes) at the limit-th request
// of a connection, as a target with a fixed-size request table that never
// frees its entries would (CM-PROT-02: a flood of pipelined requests).
func crashAfterRequests(limit int) serveFunc {
	return func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
		n := 0
		return proxied(func(msg map[string]any) (edited, die bool) {
			if _, ok := msg["method"]; ok && msg["id"] != nil {
				n++
			}
			return false, n >= limit
		})(ctx, eng, r, w)
	}
}

// crashOnReusedID dies (the connection closes) when a request reuses an id
// the connection has seen before, as a target that keys its requests by id
// and fails on a duplicate key would (CM-PROT-02).
func crashOnReusedID() serveFunc {
	return func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
		seen := map[string]bool{}
		return proxied(func(msg map[string]any) (edited, die bool) {
			if _, ok := msg["method"]; !ok || msg["id"] == nil {
				return false, false
			}
			id, _ := json.Marshal(msg["id"])
			if seen[string(id)] {
				return false, true
			}
			seen[string(id)] = true
			return false, false
		})(ctx, eng, r, w)
	}
}
