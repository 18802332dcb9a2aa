package broken

import (
	"context"
	"encoding/json"
	"io"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
	"github.com/codemode-conformance/codemode/reference/store"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// More results and session store variants (issue 14 item 4, the generation 2
// requirements CM-RES-04.. and CM-STO-05..): the reference under profile v2
// with a defective store.
func init() {
	Variants = append(Variants,
		Variant{Name: "auto-retain-loses-large", Breaks: "CM-RES-04", Profile: "v2",
			Defect: "the results store hands out a reference for a value over 2 KiB but keeps only its first 2 KiB, so an auto-retained result cannot be loaded whole",
			Serve:  servingResults(func(r *store.Results) codemode.ResultsStore { return lossyResults{r} })},
		Variant{Name: "store-no-transcript-entry", Breaks: "CM-STO-05", Profile: "v2",
			Defect: "the session store commits a cell's writes to its own table and never appends the openclaw.code-mode-store transcript entry",
			Serve:  servingFresh(func() codemode.SessionStore { return &noEntry{} })},
		Variant{Name: "store-commits-despite-failed-append", Breaks: "CM-STO-06", Profile: "v2",
			Defect: "the session store updates the committed values although the transcript append failed",
			Serve:  servingFresh(func() codemode.SessionStore { return &ignoreAppendError{} })},
		Variant{Name: "store-ignores-live-leaf", Breaks: "CM-STO-10", Profile: "v2",
			Defect: "store/load never compare the run's branch with the session's live leaf, so a run of a stale branch goes on reading and writing it",
			Serve:  servingFresh(func() codemode.SessionStore { return &anyLeaf{} })},
		Variant{Name: "store-hydration-window", Breaks: "CM-STO-08", Profile: "v2",
			Defect: "the session store replays only the last 64 store entries of the transcript (the live manager's hydration window), so older committed values are lost",
			Serve:  servingFresh(func() codemode.SessionStore { return &hydrationWindow{} })},
		Variant{Name: "results-evict-when-full", Breaks: "CM-RES-05", Profile: "v2",
			Defect: "a full results store evicts its oldest entries to make room instead of refusing, so auto-retain never reports notRetained and explicit references silently vanish",
			Serve:  servingResults(func(r *store.Results) codemode.ResultsStore { return &evictingResults{Results: r} })},
		Variant{Name: "auto-retain-silent-refusal", Breaks: "CM-RES-05", Profile: "v2", Spec: "auto-retain refused because the store is full",
			Defect: "every auto-retained value carries a truncation marker \"…\", and a refused one drops its not-retained reason, so only the marker is left",
			Serve:  outboundWith(codemode.Options{Profile: "v2"}, silentRefusal)},
		Variant{Name: "headless-auto-retains", Breaks: "CM-RES-06", Profile: "v2",
			Defect: "session.headless is ignored, so headless and restart-safe cells allocate automatic references",
			Serve: rewritingPrepareV2(func(p map[string]any) {
				if s, ok := p["session"].(map[string]any); ok {
					delete(s, "headless")
				}
			})},
	)
}

// evictingResults deletes its oldest entries until a save fits.
type evictingResults struct {
	*store.Results
	refs []string
}

func (e *evictingResults) Save(v json.RawMessage, network bool) (string, error) {
	for {
		ref, err := e.Results.Save(v, network)
		if err == nil {
			e.refs = append(e.refs, ref)
			return ref, nil
		}
		if len(e.refs) == 0 {
			return "", err
		}
		e.Results.Delete(e.refs[0])
		e.refs = e.refs[1:]
	}
}

// hydrationWindow replays only the newest 64 store entries.
type hydrationWindow struct{ store.Sessions }

func (h *hydrationWindow) Replay(b store.Branch, entries []protocol.StoreEntry) error {
	return h.Sessions.Replay(b, entries[max(0, len(entries)-64):])
}

// noEntry commits without handing the entry to the transcript.
type noEntry struct{ store.Sessions }

func (n *noEntry) Commit(b store.Branch, w *store.WriteSet, _ func(protocol.StoreEntry) error) error {
	return n.Sessions.Commit(b, w, func(protocol.StoreEntry) error { return nil })
}

// ignoreAppendError commits whatever the append answers.
type ignoreAppendError struct{ store.Sessions }

func (x *ignoreAppendError) Commit(b store.Branch, w *store.WriteSet, appendEntry func(protocol.StoreEntry) error) error {
	return x.Sessions.Commit(b, w, func(e protocol.StoreEntry) error { _ = appendEntry(e); return nil })
}

// anyLeaf accepts every branch as the live leaf.
type anyLeaf struct{ store.Sessions }

func (*anyLeaf) CheckLeaf(store.Branch) error { return nil }

// lossyResults keeps a large value as a string of its first 2 KiB.
type lossyResults struct{ *store.Results }

func (l lossyResults) Save(v json.RawMessage, network bool) (string, error) {
	if len(v) > 2048 {
		cut, _ := json.Marshal(string(v[:2048]))
		v = cut
	}
	return l.Results.Save(v, network)
}

// servingFresh serves the reference under profile v2 with a new session
// store from mk per target process, so that a restart loses it as the
// reference's own store is lost (CM-STO-08 restarts the target).
func servingFresh(mk func() codemode.SessionStore) func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
	return func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
		return servingStore(mk())(ctx, eng, r, w)
	}
}

// rewritingPrepareV2 serves the reference under profile v2 behind a proxy
// that edits the params of every run.prepare (rewriting serves profile v1).
func rewritingPrepareV2(edit func(params map[string]any)) serveFunc {
	return func(ctx context.Context, eng *engine.Engine, r io.Reader, w io.WriteCloser) error {
		innerR, toInner := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- server.Serve(ctx, innerR, w, server.Options{Engine: eng, Runtime: codemode.Options{Profile: "v2"}})
		}()
		pump(r, toInner, func(msg map[string]any) (bool, verdict) {
			if p, ok := msg["params"].(map[string]any); ok && msg["method"] == "run.prepare" {
				edit(p)
				return true, forward
			}
			return false, forward
		})
		toInner.Close()
		return <-done
	}
}

// silentRefusal gives every auto-retained value of an answer (the
// reference's Retained) a marker "…", trimming its preview to make room,
// and drops the notRetained reason of a refused one.
func silentRefusal(msg map[string]any) (edited, drop bool) {
	res, ok := msg["result"].(map[string]any)
	if !ok || msg["method"] != nil {
		return false, false
	}
	v, ok := res["value"].(map[string]any)
	if !ok || v["truncated"] != true {
		return false, false
	}
	if p, ok := v["preview"].(string); ok && len(p) > 32 {
		v["preview"] = p[:len(p)-32] // ASCII JSON: a byte cut keeps it a prefix
	}
	delete(v, "notRetained")
	v["more"] = "…"
	return true, false
}
