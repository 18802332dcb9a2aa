package broken

import (
	"context"
	"encoding/json"
	"io"
	"unicode/utf8"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
)

// The silent cut behind a standing note (audit 2026-12-02-stop34, CM-LIM-03
// (b)): a truncation rule that counts any string containing "truncat" passes
// it, though nothing the target added says the result was cut.
func init() {
	Variants = append(Variants,
		Variant{Name: "silent-cut-standing-note", Breaks: "CM-LIM-03", Profile: "v2",
			Defect: "under v2, a result over maxOutputBytes is cut silently to about 1500 bytes of the guest's own content, and every cut result carries a standing note \"(output not truncated)\" (it says the opposite): the model gets a cut result as if it were whole",
			Serve:  silentCutWithNote(2048, 1500)},
	)
}

// silentCutWithNote serves the reference under v2 with every configured
// maxOutputBytes raised to 10 MiB (so the guest's output comes back whole),
// and cuts each completed or waiting result whose value and output take more
// than over bytes of JSON to keep bytes of the guest's content, adding the
// text item "(output not truncated)"; a failed result's error is cut to over
// bytes. Nothing marks the cut.
func silentCutWithNote(over, keep int) serveFunc {
	return func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
		fromInner, innerW := io.Pipe()
		go func() {
			pump(fromInner, w, func(msg map[string]any) (bool, verdict) {
				res, ok := msg["result"].(map[string]any)
				if !ok || msg["method"] != nil {
					return false, forward
				}
				return cutSilently(res, over, keep), forward
			})
			fromInner.Close()
			w.Close()
		}()
		innerR, toInner := io.Pipe()
		go func() {
			pump(r, toInner, func(msg map[string]any) (bool, verdict) {
				if msg["method"] != "run.prepare" {
					return false, forward
				}
				p, _ := msg["params"].(map[string]any)
				if cm, ok := p["codeMode"].(map[string]any); ok && cm["maxOutputBytes"] != nil {
					cm["maxOutputBytes"] = 10485760
					return true, forward
				}
				return false, forward
			})
			toInner.Close()
		}()
		return server.Serve(ctx, innerR, innerW, server.Options{Engine: eng, Runtime: codemode.Options{Profile: "v2"}})
	}
}

// cutSilently edits one exec/wait result as silentCutWithNote says; it
// reports whether it changed res.
func cutSilently(res map[string]any, over, keep int) bool {
	switch res["status"] {
	case "failed":
		if e, ok := res["error"].(string); ok && len(e) > over {
			res["error"] = cutUTF8(e, over)
			return true
		}
		return false
	case "completed", "waiting":
	default:
		return false
	}
	b, _ := json.Marshal(map[string]any{"value": res["value"], "output": res["output"]})
	if len(b) <= over {
		return false
	}
	left := keep
	var out []any
	items, _ := res["output"].([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		if t, ok := m["text"].(string); ok && left > 0 {
			t = cutUTF8(t, left)
			left -= len(t)
			out = append(out, map[string]any{"type": "text", "text": t})
			continue
		}
		if j, err := json.Marshal(it); err == nil && len(j) <= left {
			left -= len(j)
			out = append(out, it)
		}
	}
	if s, ok := res["value"].(string); ok {
		res["value"] = cutUTF8(s, max(left, 0))
	}
	res["output"] = append(out, map[string]any{"type": "text", "text": "(output not truncated)"})
	return true
}

// cutUTF8 is s's longest prefix of at most n bytes that ends on a rune.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
