package broken

import (
	"context"
	"encoding/json"
	"io"
	"sync"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
	"github.com/codemode-conformance/codemode/reference/store"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// The results and session store variants (issue 14, features results and
// session-store): the reference under profile v2 with a defective store.
func init() {
	Variants = append(Variants,
		Variant{Name: "store-commits-failed-cell", Breaks: "CM-STO-02", Profile: "v2",
			Defect: "the session store commits a cell's writes whatever its outcome: a failed, timed-out, aborted or expired cell's store() calls become visible",
			Serve:  servingStore(&commitAlways{})},
		Variant{Name: "store-shared-across-branches", Breaks: "CM-STO-03", Profile: "v2",
			Defect: "the session store keys values by nothing: every session and branch of the process reads and commits one shared store",
			Serve:  servingStore(sharedStore{s: &store.Sessions{}})},
		Variant{Name: "results-outlive-reply", Breaks: "CM-RES-03", Profile: "v2",
			Defect: "the results store is kept per session and never cleared: a reference saved in one reply loads in the next",
			Serve: func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
				return server.Serve(ctx, r, w, server.Options{Engine: eng, Runtime: codemode.Options{Profile: "v2", Results: shared.For}})
			}},
	)
}

// shared is the results-outlive-reply variant's store, one per process.
var shared = &sessionResults{}

// servingStore serves the reference under profile v2 with s as its session
// store.
func servingStore(s codemode.SessionStore) func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
	return func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
		return server.Serve(ctx, r, w, server.Options{Engine: eng, Runtime: codemode.Options{Profile: "v2", SessionStore: s}})
	}
}

// servingResults serves the reference under profile v2 with each run's
// results store wrapped by wrap (a defective store around a real one).
func servingResults(wrap func(*store.Results) codemode.ResultsStore) func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
	return func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
		return server.Serve(ctx, r, w, server.Options{Engine: eng, Runtime: codemode.Options{Profile: "v2",
			Results: func(_ protocol.PrepareParams, maxBytes int64) codemode.ResultsStore {
				return wrap(store.NewResults(maxBytes))
			}}})
	}
}

// commitAlways commits on Discard too.
type commitAlways struct{ store.Sessions }

func (c *commitAlways) Discard(b store.Branch, w *store.WriteSet) {
	_ = c.Commit(b, w, func(protocol.StoreEntry) error { return nil })
}

// sharedStore maps every branch of every session to one.
type sharedStore struct{ s *store.Sessions }

func (x sharedStore) Load(_ store.Branch, w *store.WriteSet, key string) (json.RawMessage, bool, bool, error) {
	return x.s.Load(store.Branch{}, w, key)
}
func (x sharedStore) Commit(_ store.Branch, w *store.WriteSet, appendEntry func(protocol.StoreEntry) error) error {
	return x.s.Commit(store.Branch{}, w, appendEntry)
}
func (x sharedStore) Discard(_ store.Branch, w *store.WriteSet) { x.s.Discard(store.Branch{}, w) }
func (x sharedStore) Enter(b store.Branch)                      { x.s.Enter(b) }
func (x sharedStore) Leave(b store.Branch)                      { x.s.Leave(b) }
func (x sharedStore) CheckLeaf(b store.Branch) error            { return x.s.CheckLeaf(b) }
func (x sharedStore) Replay(_ store.Branch, e []protocol.StoreEntry) error {
	return x.s.Replay(store.Branch{}, e)
}

// sessionResults keeps one results store per session that nothing clears:
// references outlive their reply.
type sessionResults struct {
	mu sync.Mutex
	by map[string]*store.Results
}

func (s *sessionResults) For(p protocol.PrepareParams, maxBytes int64) codemode.ResultsStore {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.by == nil {
		s.by = map[string]*store.Results{}
	}
	r := s.by[p.SessionID]
	if r == nil {
		r = store.NewResults(maxBytes)
		s.by[p.SessionID] = r
	}
	return uncleared{r}
}

// uncleared ignores Clear (abort, run end).
type uncleared struct{ *store.Results }

func (uncleared) Clear() {}
