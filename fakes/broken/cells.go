package broken

import (
	"context"
	"encoding/json"
	"io"
	"sync"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
)

// cells remembers the guest code of the cells a proxy saw: by the JSON-RPC
// id of each tool.exec (or rewritten tool.wait) until it is answered, then by
// the runId of a waiting answer, and per run the code of its last failed
// cell; also the run that owns each waiting runId and the session of each
// prepared run. Safe for concurrent use.
type cells struct {
	mu        sync.Mutex
	byRequest map[any]sentCell  // JSON-RPC id of an unanswered exec/wait -> its cell
	byRunID   map[string]string // runId of a waiting cell -> its code
	failed    map[string]string // run -> code of its last failed cell
	owner     map[string]string // runId of a waiting cell -> its run
	session   map[string]string // run -> its sessionId and sessionKey
}

type sentCell struct{ run, code string }

// execCode is the guest code of a tool.exec's params (code, or its alias
// command), or "".
func execCode(p map[string]any) string {
	in, _ := p["input"].(map[string]any)
	if c, _ := in["code"].(string); c != "" {
		return c
	}
	c, _ := in["command"].(string)
	return c
}

// waitRunID is the runId a tool.wait's params name, or "".
func waitRunID(p map[string]any) string {
	in, _ := p["input"].(map[string]any)
	id, _ := in["runId"].(string)
	return id
}

// sent records that request id runs code in run.
func (cs *cells) sent(id any, run, code string) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.byRequest[id] = sentCell{run, code}
}

// answered records the answer to request id.
func (cs *cells) answered(id any, res map[string]any) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.byRequest[id]
	if !ok {
		return
	}
	delete(cs.byRequest, id)
	switch res["status"] {
	case "waiting":
		if runID, _ := res["runId"].(string); runID != "" {
			cs.byRunID[runID] = c.code
			cs.owner[runID] = c.run
		}
	case "failed":
		cs.failed[c.run] = c.code
	}
}

// waiting returns the code of the waiting cell runID.
func (cs *cells) waiting(runID string) (string, bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.byRunID[runID]
	return c, ok
}

// takeFailed returns and forgets the code of run's last failed cell.
func (cs *cells) takeFailed(run string) (string, bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.failed[run]
	delete(cs.failed, run)
	return c, ok
}

// rewritingCells serves the reference behind a proxy that tracks the cells
// it sees (cells) and shows each tool.exec and tool.wait request from the
// harness to edit, which may rewrite it in place (method and params). A
// request is recorded before edit sees it (an exec with its own code, a wait
// with the code of the cell it continues), and again if edit turned it into
// another method or sent it to another run.
func rewritingCells(edit func(cs *cells, method string, params map[string]any, msg map[string]any) (edited bool)) serveFunc {
	return func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
		cs := &cells{byRequest: map[any]sentCell{}, byRunID: map[string]string{}, failed: map[string]string{}, owner: map[string]string{}, session: map[string]string{}}
		fromInner, innerW := io.Pipe()
		go func() {
			pump(fromInner, w, func(msg map[string]any) (bool, verdict) {
				if res, ok := msg["result"].(map[string]any); ok && msg["method"] == nil {
					cs.answered(msg["id"], res)
				}
				return false, forward
			})
			fromInner.Close()
			w.Close()
		}()
		innerR, toInner := io.Pipe()
		go func() {
			pump(r, toInner, func(msg map[string]any) (bool, verdict) {
				method, _ := msg["method"].(string)
				p, _ := msg["params"].(map[string]any)
				run, _ := p["run"].(string)
				if method == "run.prepare" {
					sid, _ := p["sessionId"].(string)
					key, _ := p["sessionKey"].(string)
					cs.mu.Lock()
					cs.session[run] = sid + "\x00" + key
					cs.mu.Unlock()
				}
				if p == nil || (method != "tool.exec" && method != "tool.wait") {
					return false, forward
				}
				record := func() {
					to, _ := p["run"].(string)
					if msg["method"] == "tool.exec" {
						cs.sent(msg["id"], to, execCode(p))
						return
					}
					code, _ := cs.waiting(waitRunID(p)) // the cell the wait continues
					cs.sent(msg["id"], to, code)
				}
				record()
				edited := edit(cs, method, p, msg)
				if to, _ := p["run"].(string); edited && (msg["method"] != method || to != run) {
					record() // now another method, or for another run
				}
				return edited, forward
			})
			toInner.Close()
		}()
		return server.Serve(ctx, innerR, innerW, server.Options{Engine: eng})
	}
}

// replayingWaits is a replay-based resume: a wait on a cell the proxy saw
// suspend runs the cell's code again from the start, as a new exec under the
// wait's request (and toolCallId), so nested calls and output made before the
// suspension happen again (CM-EXEC-18).
func replayingWaits() serveFunc {
	return rewritingCells(func(cs *cells, method string, p, msg map[string]any) bool {
		if method != "tool.wait" {
			return false
		}
		runID := waitRunID(p)
		code, ok := cs.waiting(runID)
		if !ok {
			return false
		}
		msg["method"] = "tool.exec"
		p["input"] = map[string]any{"code": code}
		return true
	})
}

// retryingFailedCells makes the first exec after a failed cell of the same
// run first run the failed cell's code again (its error swallowed), as a
// target that "recovers" by retrying would: the nested calls that cell had
// completed run again (CM-GUEST-12).
func retryingFailedCells() serveFunc {
	return rewritingCells(func(cs *cells, method string, p, msg map[string]any) bool {
		run, _ := p["run"].(string)
		if method != "tool.exec" {
			return false
		}
		old, ok := cs.takeFailed(run)
		code := execCode(p)
		if !ok || code == "" {
			return false
		}
		p["input"] = map[string]any{"code": "await (async () => {\n" + old + "\n})().catch(() => {});\n" + code}
		return true
	})
}

// sessionScopedWaits checks only the session of a wait, not its run: a wait
// from another run of the same session is handed to the run that owns the
// cell and resumes it (CM-EXEC-09).
func sessionScopedWaits() serveFunc {
	return rewritingCells(func(cs *cells, method string, p, msg map[string]any) bool {
		if method != "tool.wait" {
			return false
		}
		runID := waitRunID(p)
		run, _ := p["run"].(string)
		cs.mu.Lock()
		defer cs.mu.Unlock()
		owner, ok := cs.owner[runID]
		if !ok || owner == run || cs.session[owner] != cs.session[run] {
			return false
		}
		p["run"] = owner
		return true
	})
}

// rewritingResults serves the reference behind a proxy that shows the
// result of every tool.exec/tool.wait answer (any answer whose result has a
// status) to edit, which may change it in place.
func rewritingResults(edit func(res map[string]any) (edited bool)) serveFunc {
	return outbound(func(msg map[string]any) (bool, bool) {
		res, ok := msg["result"].(map[string]any)
		if !ok || msg["method"] != nil {
			return false, false
		}
		if _, isResult := res["status"]; !isResult {
			return false, false
		}
		return edit(res), false
	})
}

// oversizedAnswerKills serves the reference behind a proxy that dies, like a
// process out of host memory, when the harness answers a tool.invoke with a
// result whose JSON exceeds limit bytes: a target that buffers bridge values
// without a bound (CM-LIM-07).
func oversizedAnswerKills(limit int) serveFunc {
	return proxied(func(msg map[string]any) (edited, die bool) {
		if _, isRequest := msg["method"]; isRequest {
			return false, false
		}
		v, ok := msg["result"]
		if !ok {
			return false, false
		}
		b, _ := json.Marshal(v)
		return false, len(b) > limit
	})
}
