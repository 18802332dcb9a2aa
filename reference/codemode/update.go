package codemode

import (
	"fmt"
	"slices"

	"github.com/codemode-conformance/codemode/reference/catalog"
	"github.com/codemode-conformance/codemode/reference/store"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// catalog is the run's current hidden catalog (nil for an inactive run).
// Host-side lookups of every cell, parked ones included, go through it, so a
// tool a run.update removed is unknown at once (CM-RES-07).
func (r *agentRun) catalog() *catalog.Catalog { return r.cat.Load() }

// lookup resolves the catalog id of a nested call of the step's cell in the
// run's current catalog, so that a restriction or replacement reaches
// parked cells too (CM-RES-07); the broken variant Defects.CellCatalog
// resolves it in the catalog of the cell's start instead.
func (s *step) lookup(id string) (*catalog.Tool, bool) {
	if s.rt.opts.Defects.CellCatalog && s.c.cat != nil {
		return s.c.cat.Lookup(id)
	}
	return s.c.run.catalog().Lookup(id)
}

// currentResults is the results store of the run's current catalog lifetime:
// the one a cell starting now binds to (nil without feature results).
func (r *agentRun) currentResults() ResultsStore {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.results
}

// newResults makes a results store for run (Options.Results or a fresh
// store.Results) of min(memoryLimitBytes, maxSnapshotBytes) bytes.
func (rt *Runtime) newResults(run *agentRun) ResultsStore {
	limit := min(run.cfg.MemoryLimitBytes, run.cfg.MaxSnapshotBytes)
	if rt.opts.Results != nil {
		return rt.opts.Results(run.prep, limit)
	}
	return store.NewResults(limit)
}

// Update applies one run.update operation to a prepared, active run
// (spec/protocol.md §3 "run.update"; CM-RES-03, CM-RES-07):
//
//   - replaceTools: a new catalog of the given harness tools (plus the run's
//     MCP tools) under the run's policy; the old results store is cleared
//     and cells started afterwards bind to a new one.
//   - restrictTo: the catalog keeps the entries whose tool name is listed;
//     if that removes one, the store is cleared and replaced likewise.
//   - attachClientTools: the client tools join the catalog; the store stays.
//
// A cell keeps the store it bound to when it started (cell.results): a
// parked cell never adopts a replacement, and after a replacement or
// restriction its own store is cleared. Errors: protocol.ErrUpdateOperation
// (and the other refusals of p.Operation), ErrUnknownRun, ErrInactive.
func (rt *Runtime) Update(p protocol.UpdateParams) error {
	op, err := p.Operation()
	if err != nil {
		return err
	}
	r, ok := rt.run(p.Run)
	if !ok {
		return ErrUnknownRun
	}
	if !r.active {
		return ErrInactive
	}
	r.mu.Lock() // one update at a time; newCell reads r.results under it
	defer r.mu.Unlock()
	old := r.catalog()
	var specs []protocol.ToolSpec
	switch op {
	case protocol.UpdateReplace:
		q := r.prep
		q.Tools = slices.Clone(p.ReplaceTools)
		if r.mcp != nil {
			q.Tools = append(q.Tools, r.mcp.ToolSpecs()...)
		}
		specs = catalog.Effective(q)
	case protocol.UpdateRestrict:
		for _, t := range old.Tools {
			if slices.Contains(p.RestrictTo, t.Spec.Name) {
				specs = append(specs, t.Spec)
			}
		}
		if len(specs) == len(old.Tools) {
			return nil // nothing removed: no permission changed
		}
	case protocol.UpdateAttach:
		for _, t := range old.Tools {
			specs = append(specs, t.Spec)
		}
		q := r.prep
		q.Tools = p.AttachClientTools
		specs = append(specs, catalog.Effective(q)...)
	default:
		return fmt.Errorf("run.update: unknown operation %q", op)
	}
	r.cat.Store(catalog.Build(specs))
	if r.surface != nil { // later cells boot with the new catalog's globals (§12.13)
		r.surface = rt.opts.newCatalogSurface(r.catalog(), r.reservedGlobals(), r.surface)
	}
	guestIndex(r.surface, r.catalog()) // built now, not in the next cell (issue 28 N12)
	if op != protocol.UpdateAttach && r.results != nil {
		// The old catalog lifetime ends: its references are gone for every
		// cell bound to it (CM-RES-03), and later cells get a new store.
		r.results.Clear()
		r.results = rt.newResults(r)
	}
	return nil
}
