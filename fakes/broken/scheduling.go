package broken

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/codemode-conformance/codemode/reference/bridge"
	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
	"github.com/codemode-conformance/codemode/spec/config"
)

// The scheduling variants (issue 14): the bridge queue, executionMode and the
// trajectory, each as a runtime with that defect would behave. The first two
// serve the reference under profile v2, where bridge-queue and
// execution-mode are declared.
func init() {
	Variants = append(Variants,
		Variant{Name: "queue-drops-overflow", Breaks: "CM-NEST-05", Spec: "the 129th fails", Profile: "v2",
			Defect: "a synchronous front larger than maxPendingToolCalls + 128 is not refused: the calls beyond the queue's capacity are dropped silently (their promises never settle) and the rest are sent",
			Serve:  dropOverflow()},
		Variant{Name: "sequential-overlaps", Breaks: "CM-NEST-06", Profile: "v2",
			Defect: "executionMode is ignored: a sequential tool's calls are sent while other calls are in flight and overlap them",
			Serve: underProfile("v2", func(msg map[string]any) bool {
				if msg["method"] != "run.prepare" {
					return false
				}
				p, _ := msg["params"].(map[string]any)
				forEachTool(p, func(t map[string]any) { delete(t, "executionMode") })
				return true
			})},
		Variant{Name: "trajectory-flattened", Breaks: "CM-NEST-07",
			Defect: "run.trajectory lists nested calls at the top level, beside exec and wait, without the parent call they were made under",
			Serve: outbound(func(msg map[string]any) (edited, drop bool) {
				res, ok := msg["result"].(map[string]any)
				calls, isTrajectory := res["calls"].([]any)
				if !ok || !isTrajectory || msg["method"] != nil {
					return false, false
				}
				for _, c := range calls {
					if m, ok := c.(map[string]any); ok {
						delete(m, "parentToolCallId")
					}
				}
				return true, false
			})},
	)
}

// underProfile serves the reference under profile behind a proxy that shows
// each message from the harness to edit, which reports whether it edited it
// in place.
func underProfile(profile string, edit func(msg map[string]any) (edited bool)) serveFunc {
	return func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
		innerR, toInner := io.Pipe()
		go func() {
			pump(r, toInner, func(msg map[string]any) (bool, verdict) { return edit(msg), forward })
			toInner.Close()
		}()
		return server.Serve(ctx, innerR, w, server.Options{Engine: eng, Runtime: codemode.Options{Profile: profile}})
	}
}

// dropOverflow serves the reference under v2 with, before the code of every
// exec, a tools object whose call drops the calls of a synchronous front
// beyond maxPendingToolCalls + 128: it returns a promise that never settles
// instead of failing the cell.
func dropOverflow() serveFunc {
	var (
		mu       sync.Mutex
		capacity = map[any]int64{} // run -> maxPendingToolCalls + 128
	)
	return underProfile("v2", func(msg map[string]any) bool {
		p, _ := msg["params"].(map[string]any)
		switch msg["method"] {
		case "run.prepare":
			raw, _ := json.Marshal(p["codeMode"])
			if p["codeMode"] == nil {
				raw = nil
			}
			if cfg, err := config.Resolve(raw); err == nil {
				mu.Lock()
				capacity[p["run"]] = cfg.MaxPendingToolCalls + bridge.MaxQueuedRequests
				mu.Unlock()
			}
			return false
		case "tool.exec":
			mu.Lock()
			c, ok := capacity[p["run"]]
			mu.Unlock()
			if !ok {
				return false
			}
			return editCode(msg, func(code string) string {
				// One synchronous front's counter for both surfaces: 000's
				// tools.call and 001's catalog handles (the v2 guest dialect's
				// call/dispatch go through catalog.all()).
				return fmt.Sprintf(`const __front = (() => { let n = 0; return (f) => { if (n++ === 0) Promise.resolve().then(() => { n = 0; }); return n > %d ? new Promise(() => {}) : f(); }; })(); `+
					`const tools = (() => { const real = globalThis.tools; if (!real) return real; const t = Object.assign(Object.create(null), real); `+
					`t.call = (id, input) => __front(() => real.call(id, input)); return Object.freeze(t); })(); `+
					`const catalog = (() => { const real = globalThis.catalog; if (!real) return real; `+
					`const gate = (h) => { if (typeof h !== "function") return h; const g = (...a) => __front(() => h(...a)); `+
					`for (const k of ["toolName", "label", "description", "source", "sourceName", "callableName"]) g[k] = h[k]; return g; }; `+
					`const c = Object.assign(Object.create(null), real); c.all = () => real.all().map(gate); `+
					`c.search = async (...a) => (await real.search(...a)).map(gate); return Object.freeze(c); })(); `, c) + code
			})
		}
		return false
	})
}
