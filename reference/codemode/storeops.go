package codemode

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/codemode-conformance/codemode/reference/bridge"
	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/reference/store"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// SessionStore keeps the committed session store values of a process
// (feature session-store). The reference uses *store.Sessions; fakes/broken
// swaps in defective ones.
type SessionStore interface {
	// Load returns key on branch b as the cell with write set w sees it;
	// network is its provenance (CM-STO-11).
	Load(b store.Branch, w *store.WriteSet, key string) (v json.RawMessage, found, network bool, err error)
	// Commit applies a completed cell's write set (CM-STO-02) after handing
	// its transcript entry to appendEntry (CM-STO-05); a failed append
	// commits nothing (CM-STO-06).
	Commit(b store.Branch, w *store.WriteSet, appendEntry func(protocol.StoreEntry) error) error
	// Discard drops the write set of a cell that did not complete.
	Discard(b store.Branch, w *store.WriteSet)
	// Enter and Leave bracket a prepared run of branch b: the last run
	// prepared makes its branch the session's live leaf; CheckLeaf refuses
	// a branch that is not (CM-STO-10).
	Enter(b store.Branch)
	Leave(b store.Branch)
	CheckLeaf(b store.Branch) error
	// Replay rebuilds branch b's committed values from the store entries of
	// its transcript (run.prepare session.transcript, CM-STO-08).
	Replay(b store.Branch, entries []protocol.StoreEntry) error
}

// ResultsStore is one run's results store (feature results): *store.Results
// by default; fakes/broken swaps in defective ones through Options.Results.
// Save's network and Load's network are the value's provenance: it came
// from network-controlled content (CM-RES-08).
type ResultsStore interface {
	Save(v json.RawMessage, network bool) (string, error)
	Load(ref string) (v json.RawMessage, network bool, err error)
	Delete(ref string) bool
	Clear()
}

// sessionStore is the process's SessionStore: Options.SessionStore or, by
// default, the Runtime's own *store.Sessions.
func (rt *Runtime) sessionStore() SessionStore {
	if rt.opts.SessionStore != nil {
		return rt.opts.SessionStore
	}
	return &rt.sessions
}

// prepareStore binds run to its results store and session branch
// (CM-RES-01, CM-STO-03/04). Called by Prepare for an active run.
func (rt *Runtime) prepareStore(run *agentRun, p protocol.PrepareParams) {
	run.headless = p.Session != nil && p.Session.Headless
	if rt.opts.HasFeature("results") {
		run.results = rt.newResults(run) // update.go
	}
	if rt.opts.HasFeature("session-store") {
		run.sessions = rt.sessionStore()
		if p.Session != nil && p.Session.Branch != "" && !p.Session.Headless {
			run.branch = &store.Branch{SessionID: p.SessionID, SessionKey: p.SessionKey, Name: p.Session.Branch}
			run.sessions.Enter(*run.branch)  // the live leaf moves to this branch (CM-STO-10)
			if p.Session.Transcript != nil { // the transcript is the persistence (CM-STO-08)
				entries, err := store.ParseTranscript(p.Session.Transcript)
				if err == nil {
					err = run.sessions.Replay(*run.branch, entries)
				}
				run.storeErr = err
			}
		}
		run.appendFails = p.Faults != nil && p.Faults.StoreAppendFails && rt.opts.HasFeature("fault-injection")
	}
}

// leaveBranch ends run's hold on its session's live leaf (run.end).
func (r *agentRun) leaveBranch() {
	if r.sessions != nil && r.branch != nil {
		r.sessions.Leave(*r.branch)
	}
}

// clearResults drops the run's saved results: abort and run end tear the
// catalog down (CM-RES-03).
func (r *agentRun) clearResults() {
	if res := r.currentResults(); res != nil {
		res.Clear()
	}
}

// storeOp answers one request of store.js at once (CM-RES-01..03,
// CM-STO-01..04). A refusal is a catchable guest error.
func (s *step) storeOp(q prelude.Request) prelude.Delivery {
	r, results := s.c.run, s.c.results // the store the cell bound to (CM-RES-07)
	fail := func(err error) prelude.Delivery {
		return bridge.ErrorDelivery(q.ID, "Error", err.Error(), "invalid_input", nil)
	}
	ok := func(v any) prelude.Delivery {
		b, err := json.Marshal(v)
		if err != nil {
			return fail(err)
		}
		return prelude.Delivery{ID: q.ID, OK: true, Value: b}
	}
	found := func(v json.RawMessage, f bool) prelude.Delivery {
		if !f {
			return ok(map[string]any{"found": false})
		}
		return ok(map[string]any{"found": true, "value": v})
	}
	switch q.Op {
	case prelude.OpResultsSave, prelude.OpResultsLoad, prelude.OpResultsDelete:
		if results == nil {
			return fail(fmt.Errorf("results is not available (feature results)"))
		}
		switch q.Op {
		case prelude.OpResultsSave:
			ref, err := results.Save(q.Input, s.c.network.taken()) // provenance (CM-RES-08)
			if err != nil {
				return fail(fmt.Errorf("results.save: %w", err))
			}
			return ok(ref)
		case prelude.OpResultsLoad:
			v, network, err := results.Load(q.Key)
			if err != nil {
				return fail(fmt.Errorf("results.load: %w", err))
			}
			if network { // the receiving cell's result is untrusted (CM-RES-08)
				s.c.network.observe()
			}
			return found(v, true)
		default:
			return ok(results.Delete(q.Key))
		}
	default: // store.set, store.load
		if r.sessions == nil {
			return fail(fmt.Errorf("store and load are not available (feature session-store)"))
		}
		if r.branch == nil {
			return fail(store.ErrUnbound)
		}
		if r.storeErr != nil {
			return fail(fmt.Errorf("the session transcript could not be replayed: %w", r.storeErr))
		}
		if err := r.sessions.CheckLeaf(*r.branch); err != nil {
			return fail(err) // CM-STO-10
		}
		if q.Op == prelude.OpStoreSet {
			var v json.RawMessage = q.Input
			if len(v) == 0 {
				v = nil // store(key, undefined) deletes the key
			}
			if err := s.c.writes.Set(q.Key, v, s.c.network.taken(), min(r.cfg.MemoryLimitBytes, r.cfg.MaxSnapshotBytes)); err != nil {
				return fail(fmt.Errorf("store: %w", err))
			}
			return ok(nil)
		}
		v, f, network, err := r.sessions.Load(*r.branch, &s.c.writes, q.Key)
		if err != nil {
			return fail(fmt.Errorf("load: %w", err))
		}
		if network { // untrusted in a later turn too (CM-STO-11)
			s.c.network.observe()
		}
		return found(v, f)
	}
}

// MsgCommitWarning starts the text output item of a completed cell whose
// write set could not be appended to the transcript (CM-STO-06).
const MsgCommitWarning = "warning: this cell's store() writes were not saved"

// commitStore commits the cell's write set: only complete calls it
// (CM-STO-02). The entry goes to the run's transcript (run.trajectory,
// CM-STO-05); when that append fails the cell stays completed and gets a
// warning output item, and nothing is committed (CM-STO-06).
func (s *step) commitStore() {
	r := s.c.run
	if r.sessions == nil || r.branch == nil {
		return
	}
	err := r.sessions.Commit(*r.branch, &s.c.writes, func(e protocol.StoreEntry) error {
		if r.appendFails {
			return errors.New("transcript append failed (fault storeAppendFails)")
		}
		e.ToolCallID = s.parent
		return r.traj.AddEntry(e)
	})
	if err != nil {
		// The warning is small and fixed; the result envelope has room for it (§6).
		s.output = append(s.output, result.TextOutput(MsgCommitWarning+": "+err.Error()))
	}
}

// discardWrites drops what a cell that did not complete wrote (failed,
// timed out, aborted, expired, ended: CM-STO-02). After a commit the write
// set is already empty.
func (c *cell) discardWrites() {
	r := c.run
	if r.sessions != nil && r.branch != nil && !c.writes.Empty() {
		r.sessions.Discard(*r.branch, &c.writes)
	}
}
