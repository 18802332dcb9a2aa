package broken

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
	"github.com/codemode-conformance/codemode/spec/result"
)

// The variants of this file have the result faults of issue 9, each the
// way the reference had it before the fix (CM-LIM-08, CM-LIM-09,
// CM-EXEC-21..23, CM-NEST-22, CM-NEST-23).

// lines carries whole protocol lines in both directions of a lineProxy.
// Both functions add the newline and are safe for concurrent use.
type lines struct {
	toHarness, toReference func(line []byte)
}

// lineProxy serves the reference behind a proxy that hands every line from
// the harness to fromHarness and every line from the reference to
// fromReference, raw; each forwards what it wants through l.
func lineProxy(fromHarness, fromReference func(l lines, line []byte)) serveFunc {
	return func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
		innerR, toInner := io.Pipe()
		fromInner, innerW := io.Pipe()
		var mu, muIn sync.Mutex
		l := lines{
			toHarness: func(b []byte) {
				mu.Lock()
				defer mu.Unlock()
				_, _ = w.Write(append(append([]byte(nil), b...), '\n'))
			},
			toReference: func(b []byte) {
				muIn.Lock()
				defer muIn.Unlock()
				_, _ = toInner.Write(append(append([]byte(nil), b...), '\n'))
			},
		}
		scan := func(src io.Reader, each func([]byte)) {
			sc := bufio.NewScanner(src)
			sc.Buffer(make([]byte, 1<<20), 64<<20)
			for sc.Scan() {
				each(append([]byte(nil), sc.Bytes()...))
			}
		}
		go func() {
			scan(fromInner, func(b []byte) { fromReference(l, b) })
			fromInner.Close()
			w.Close()
		}()
		go func() {
			scan(r, func(b []byte) { fromHarness(l, b) })
			toInner.Close()
		}()
		return server.Serve(ctx, innerR, innerW, server.Options{Engine: eng})
	}
}

func forwardToReference(l lines, b []byte) { l.toReference(b) }

// rpc is the part of a JSON-RPC message the proxies look at.
type rpc struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
}

// unboundedFailedOutput: the target enforces maxOutputBytes by failing the
// cell but keeps the whole output in the failed result (the reference's
// `text("x".repeat(3e6))` returned 3.3 MB): the real limit is lifted to
// 10 MiB and a result whose output and value exceed the configured one
// becomes output_limit_exceeded with every output item kept.
func unboundedFailedOutput() serveFunc {
	var mu sync.Mutex
	limits := map[string]int64{} // run -> configured maxOutputBytes
	calls := map[string]string{} // exec/wait request id -> run
	return lineProxy(func(l lines, b []byte) {
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			l.toReference(b)
			return
		}
		p, _ := m["params"].(map[string]any)
		run, _ := p["run"].(string)
		switch m["method"] {
		case "run.prepare":
			limit := int64(65536)
			cm, ok := p["codeMode"].(map[string]any)
			if ok {
				if v, ok := cm["maxOutputBytes"].(float64); ok {
					limit = int64(v)
				}
				cm["maxOutputBytes"] = 10485760
			} else if p["codeMode"] == true {
				p["codeMode"] = map[string]any{"enabled": true, "maxOutputBytes": 10485760}
			}
			mu.Lock()
			limits[run] = limit
			mu.Unlock()
			b, _ = json.Marshal(m)
		case "tool.exec", "tool.wait":
			id, _ := json.Marshal(m["id"])
			mu.Lock()
			calls[string(id)] = run
			mu.Unlock()
		}
		l.toReference(b)
	}, func(l lines, b []byte) {
		var msg rpc
		if json.Unmarshal(b, &msg) != nil || msg.Method != "" || len(msg.Result) == 0 {
			l.toHarness(b)
			return
		}
		mu.Lock()
		run, ok := calls[string(msg.ID)]
		delete(calls, string(msg.ID))
		limit := limits[run]
		mu.Unlock()
		var res map[string]json.RawMessage
		if !ok || json.Unmarshal(msg.Result, &res) != nil {
			l.toHarness(b)
			return
		}
		size := result.ContentSize(res["output"]) + result.ContentSize(res["value"])
		if size <= limit {
			l.toHarness(b)
			return
		}
		delete(res, "value")
		res["status"], _ = json.Marshal("failed")
		res["code"], _ = json.Marshal(result.CodeOutputLimitExceeded)
		res["error"], _ = json.Marshal("output exceeds maxOutputBytes")
		out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": res})
		l.toHarness(out)
	})
}

// htmlEscaping: every message the target sends goes through an encoder
// with HTML escaping on (Go's json.Marshal), so <, > and & travel as
// \u003c, \u003e and \u0026.
func htmlEscaping() serveFunc {
	return lineProxy(forwardToReference, func(l lines, b []byte) {
		var msg map[string]any
		if json.Unmarshal(b, &msg) == nil {
			if e, err := json.Marshal(msg); err == nil {
				b = e
			}
		}
		l.toHarness(b)
	})
}

// loneSurrogates: the target passes lone surrogates of guest strings
// through (the reference's value channel did): every U+FFFD it sends, in
// results and tool.invoke inputs, goes out as the lone surrogate \ud83d the
// specs put there.
func loneSurrogates() serveFunc {
	return lineProxy(forwardToReference, func(l lines, b []byte) {
		l.toHarness(bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("\uFFFD"), []byte(`\ud83d`)), []byte(`\ufffd`), []byte(`\ud83d`)))
	})
}

// nonErrorsAsUndefined: a thrown non-Error is read as if it were an Error
// (its name and message, both undefined), and a returned Error becomes {}:
// the reference's behaviour before the fix. The guest code runs inside a
// wrapper that does exactly that.
func nonErrorsAsUndefined() serveFunc {
	return rewritingCode(func(code string) string {
		return "return await (async () => {\n" + code + "\n})().then((v) => (v instanceof Error ? {} : v), " +
			"(e) => { throw (e instanceof Error ? e : {name: String(e && e.name), message: String(e && e.message)}); });"
	})
}

// rejectionsSwallowed: every promise tools.call returns gets a handler that
// ignores its rejection, so the failure of a call nobody awaits vanishes
// and the cell completes (no rejection tracking). The guest's `tools` is
// shadowed by a proxy that adds the handler.
func rejectionsSwallowed() serveFunc {
	return rewritingCode(func(code string) string {
		return `const tools = new Proxy(globalThis.tools, {get(t, k) { const f = t[k]; if (k !== "call" || typeof f !== "function") return f; ` +
			`return (...a) => { const p = f.apply(t, a); p.catch(() => {}); return p; }; }});` + "\n" + code
	})
}

// lateDispatch: the target answers a cell first and dispatches the nested
// calls the cell made afterwards. The proxy answers each tool.invoke of
// the reference itself (with the tool's input) and sends it to the harness
// only 150 ms after the next answer it forwards; the harness's own answers
// to those calls are dropped.
func lateDispatch() serveFunc {
	var mu sync.Mutex
	var held [][]byte
	mine := map[string]bool{} // ids of the held invokes
	return lineProxy(func(l lines, b []byte) {
		var msg rpc
		if json.Unmarshal(b, &msg) == nil && msg.Method == "" {
			mu.Lock()
			drop := mine[string(msg.ID)]
			delete(mine, string(msg.ID))
			mu.Unlock()
			if drop {
				return
			}
		}
		l.toReference(b)
	}, func(l lines, b []byte) {
		var msg rpc
		if json.Unmarshal(b, &msg) != nil {
			l.toHarness(b)
			return
		}
		if msg.Method == "tool.invoke" {
			var p struct {
				Input json.RawMessage `json:"input"`
			}
			_ = json.Unmarshal(msg.Params, &p)
			answer, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{"result": p.Input}})
			mu.Lock()
			held = append(held, b)
			mine[string(msg.ID)] = true
			mu.Unlock()
			l.toReference(answer)
			return
		}
		l.toHarness(b)
		if msg.Method != "" || len(msg.Result) == 0 {
			return
		}
		mu.Lock()
		late := held
		held = nil
		mu.Unlock()
		if len(late) > 0 {
			time.AfterFunc(150*time.Millisecond, func() {
				for _, x := range late {
					l.toHarness(x)
				}
			})
		}
	})
}

// trapAsRangeError: an engine crash on deep recursion is reported as the
// guest's RangeError with no code (the reference said "RangeError: the
// guest VM crashed (…), most likely maximum call stack size exceeded"),
// and so is a recursion the guest caught, as an engine without a stack
// check crashes there.
func trapAsRangeError() serveFunc {
	const lie = "RangeError: the guest VM crashed (out of bounds memory access), most likely maximum call stack size exceeded"
	return outbound(func(msg map[string]any) (edited, drop bool) {
		res, ok := msg["result"].(map[string]any)
		if !ok {
			return false, false
		}
		crashed := res["code"] == "internal_error" && strings.Contains(asString(res["error"]), "engine crashed")
		caught := res["status"] == "completed" && res["value"] == "RangeError"
		if !crashed && !caught {
			return false, false
		}
		delete(res, "code")
		delete(res, "value")
		res["status"], res["error"] = "failed", lie
		return true, false
	})
}

func asString(v any) string { s, _ := v.(string); return s }
