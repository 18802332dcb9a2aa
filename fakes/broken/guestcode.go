package broken

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// fixedRandom replaces Math.random with a generator seeded the same in every
// cell, as a runtime restoring a booted template without reseeding would.
const fixedRandom = `Math.random=(()=>{let s=1;return()=>(s=s*16807%2147483647)/2147483647})();`

// replayingRandom serves the reference with fixedRandom put before the code
// of every exec.
func replayingRandom() serveFunc {
	return rewritingCode(func(code string) string { return fixedRandom + code })
}

// frozenClock serves the reference with Date.now replaced, before the code of
// every exec, by a function returning the time the exec arrived, also after
// wait resumes the cell: a clock kept in the snapshot.
func frozenClock() serveFunc {
	return rewritingCode(func(code string) string {
		return fmt.Sprintf("{ const frozen = %d; Date.now = () => frozen; } ", time.Now().UnixMilli()) + code
	})
}

// sharedState serves the reference so that every cell starts from what the
// earlier completed cells of the target process (any run, any connection)
// left behind, as a template re-booted from the last cell would: before the
// code of each exec it replays the code of every exec that completed so far,
// in order. The
// replay runs only their synchronous part: inside it tools, text, json and
// yield_control are stand-ins whose promises never settle, so it writes no
// output and makes no nested call.
func sharedState() serveFunc {
	var (
		mu       sync.Mutex
		sent     = map[any]string{} // the JSON-RPC id of an exec -> its original code
		replayed strings.Builder    // the replay of every completed cell, in order
	)
	return bothWays(func(msg map[string]any, _ io.Writer) (bool, verdict) {
		if msg["method"] != "tool.exec" {
			return false, forward
		}
		mu.Lock()
		defer mu.Unlock()
		prefix := replayed.String()
		return editCode(msg, func(code string) string {
			sent[msg["id"]] = code
			if prefix == "" {
				return code
			}
			return "{ const never = () => new Promise(() => {}); const stub = new Proxy({}, {get: () => never}); " + prefix + "}\n" + code
		}), forward
	}, func(msg map[string]any) (bool, verdict) {
		res, _ := msg["result"].(map[string]any)
		mu.Lock()
		defer mu.Unlock()
		if code, ok := sent[msg["id"]]; ok && msg["method"] == nil {
			delete(sent, msg["id"])
			if res["status"] == "completed" {
				fmt.Fprintf(&replayed, "try { void (async (tools, text, json, yield_control) => {\n%s\n})(stub, () => {}, () => {}, never); } catch (e) {}\n", code)
			}
		}
		return false, forward
	})
}

// rewritingCode serves the reference behind a proxy that rewrites the guest
// code of every exec with edit before the reference sees it.
func rewritingCode(edit func(code string) string) serveFunc {
	return proxied(func(msg map[string]any) (edited, die bool) {
		return msg["method"] == "tool.exec" && editCode(msg, edit), false
	})
}

// editCode rewrites the non-empty code and command of the exec input in the
// params of msg with edit, and reports whether there was any.
func editCode(msg map[string]any, edit func(code string) string) bool {
	p, _ := msg["params"].(map[string]any)
	in, _ := p["input"].(map[string]any)
	edited := false
	for _, k := range []string{"code", "command"} {
		if s, ok := in[k].(string); ok && s != "" {
			in[k] = edit(s)
			edited = true
		}
	}
	return edited
}

// request writes one JSON-RPC request line (in one Write, so it is a whole
// line) to w.
func request(w io.Writer, id, method string, params any) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	_, _ = w.Write(append(b, '\n'))
}
