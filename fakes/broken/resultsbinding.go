package broken

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"sync"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
	"github.com/codemode-conformance/codemode/reference/store"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// The results-store binding variants (CM-RES-07, run.update): the reference
// under profile v2 with a cell that does not keep the store it started with.
func init() {
	Variants = append(Variants,
		Variant{Name: "results-parked-cell-adopts-replacement", Breaks: "CM-RES-07", Profile: "v2", Spec: "never adopts the new store",
			Defect: "a cell reads the run's current results store at each call instead of the one it started with: a cell parked in wait across a catalog replacement adopts the replacement store",
			Serve: func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
				l := &latestResults{by: map[string]*store.Results{}}
				return server.Serve(ctx, r, w, server.Options{Engine: eng, Runtime: codemode.Options{Profile: "v2", Results: l.For}})
			}},
		Variant{Name: "attach-resets-results", Breaks: "CM-RES-07", Profile: "v2", Spec: "attaching client tools keeps",
			Defect: "attaching client tools re-registers the whole catalog (a replacement, not an append), which clears the results store of the run and of the cells parked in wait",
			Serve:  attachAsReplace},
		Variant{Name: "restriction-spares-parked-cells", Breaks: "CM-RES-07", Profile: "v2", Spec: "grants no tool access",
			Defect: "a cell resolves its nested calls in the catalog of its start: a cell parked in wait across a restriction still calls the tool the permission change removed",
			Serve: func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
				return server.Serve(ctx, r, w, server.Options{Engine: eng, Runtime: codemode.Options{Profile: "v2", Defects: codemode.Defects{CellCatalog: true}}})
			}},
	)
}

// latestResults hands every cell of a run a view of the run's newest store.
type latestResults struct {
	mu sync.Mutex
	by map[string]*store.Results // newest store by run
}

func (l *latestResults) For(p protocol.PrepareParams, maxBytes int64) codemode.ResultsStore {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.by[p.Run] = store.NewResults(maxBytes)
	return latestView{l: l, run: p.Run}
}

func (l *latestResults) get(run string) *store.Results {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.by[run]
}

// latestView forwards to the run's newest store, whichever the cell bound.
type latestView struct {
	l   *latestResults
	run string
}

func (v latestView) Save(x json.RawMessage, network bool) (string, error) {
	return v.l.get(v.run).Save(x, network)
}
func (v latestView) Load(ref string) (json.RawMessage, bool, error) { return v.l.get(v.run).Load(ref) }
func (v latestView) Delete(ref string) bool                         { return v.l.get(v.run).Delete(ref) }
func (v latestView) Clear()                                         { v.l.get(v.run).Clear() }

// attachAsReplace serves the reference under profile v2 behind a proxy that
// turns run.update attachClientTools into replaceTools of the run's tools
// plus the attached ones.
func attachAsReplace(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
	innerR, toInner := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- server.Serve(ctx, innerR, w, server.Options{Engine: eng, Runtime: codemode.Options{Profile: "v2"}})
	}()
	toolsOf := map[string][]any{} // the run's harness tools as the proxy saw them
	pump(r, toInner, func(msg map[string]any) (bool, verdict) {
		p, _ := msg["params"].(map[string]any)
		run, _ := p["run"].(string)
		switch msg["method"] {
		case protocol.MethodRunPrepare:
			ts, _ := p["tools"].([]any)
			toolsOf[run] = ts
		case protocol.MethodRunUpdate:
			if ts, ok := p["replaceTools"].([]any); ok {
				toolsOf[run] = ts
			}
			if names, ok := p["restrictTo"].([]any); ok {
				toolsOf[run] = slices.DeleteFunc(slices.Clone(toolsOf[run]), func(t any) bool {
					m, _ := t.(map[string]any)
					return !slices.Contains(names, m["name"])
				})
			}
			if ts, ok := p["attachClientTools"].([]any); ok {
				toolsOf[run] = append(slices.Clone(toolsOf[run]), ts...)
				delete(p, "attachClientTools")
				p["replaceTools"] = toolsOf[run]
				return true, forward
			}
		}
		return false, forward
	})
	toInner.Close()
	return <-done
}
