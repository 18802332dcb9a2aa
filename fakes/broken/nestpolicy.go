package broken

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Broken nested calls around what a direct call of the run has (features
// sandbox and streaming, spec/protocol.md §3 run.prepare sandbox, §4).
func init() {
	Variants = append(Variants,
		Variant{Name: "nested-sandbox-dropped", Breaks: "CM-NEST-10",
			Defect: "nested calls lose the run's sandbox policy (a direct call keeps it), so a sandboxed agent's nested tool runs unsandboxed",
			Serve: outbound(func(msg map[string]any) (edited, drop bool) {
				p, _ := msg["params"].(map[string]any)
				if msg["method"] != protocol.MethodToolInvoke || p == nil || p["parentToolCallId"] == "" {
					return false, false
				}
				c, _ := p["context"].(map[string]any)
				if _, ok := c["sandbox"]; !ok {
					return false, false
				}
				delete(c, "sandbox")
				return true, false
			})},
		Variant{Name: "progress-buffered", Breaks: "CM-NEST-11",
			Defect: "a nested tool's partial updates are held back and sent only when the call ends (just before its result reaches the cell), not as they arrive",
			Serve:  bufferingProgress()},
	)
}

// bufferingProgress serves the reference behind a proxy that holds every
// tool.progress back until the harness answers the tool.invoke it belongs
// to, then sends them all, in order, before that answer reaches the target.
func bufferingProgress() serveFunc {
	return func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
		var mu sync.Mutex
		invokes := map[string]string{} // the target's tool.invoke id (as text) -> its toolCallId
		held := map[string][][]byte{}  // toolCallId -> tool.progress lines
		out := &lockedWriter{w: w}
		fromInner, innerW := io.Pipe()
		go func() {
			pump(fromInner, out, func(msg map[string]any) (bool, verdict) {
				p, _ := msg["params"].(map[string]any)
				switch msg["method"] {
				case protocol.MethodToolInvoke:
					mu.Lock()
					invokes[fmt.Sprint(msg["id"])], _ = p["toolCallId"].(string)
					mu.Unlock()
				case protocol.MethodToolProgress:
					b, err := json.Marshal(msg)
					if err != nil {
						return false, forward
					}
					call, _ := p["nestedToolCallId"].(string)
					if call == "" {
						call, _ = p["toolCallId"].(string)
					}
					mu.Lock()
					held[call] = append(held[call], append(protocol.UnescapeHTML(b), '\n'))
					mu.Unlock()
					return false, drop
				}
				return false, forward
			})
			fromInner.Close()
			w.Close()
		}()
		innerR, toInner := io.Pipe()
		go func() {
			pump(r, toInner, func(msg map[string]any) (bool, verdict) {
				if _, isReq := msg["method"]; isReq || msg["id"] == nil {
					return false, forward
				}
				mu.Lock()
				call, ok := invokes[fmt.Sprint(msg["id"])]
				delete(invokes, fmt.Sprint(msg["id"]))
				lines := held[call]
				delete(held, call)
				mu.Unlock()
				if ok {
					for _, l := range lines {
						_, _ = out.Write(l)
					}
				}
				return false, forward
			})
			toInner.Close()
		}()
		return server.Serve(ctx, innerR, innerW, server.Options{Engine: eng})
	}
}

// lockedWriter serialises writes from two goroutines onto one stream, a
// line at a time.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
