package codemode

import (
	"context"

	"github.com/codemode-conformance/codemode/reference/bridge"
	"github.com/codemode-conformance/codemode/reference/catalog"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// The queue defects of Defects (CM-NEST-16), for fakes/broken only: what a
// bridge queue gets wrong when it treats queued calls apart from the calls
// it sends at once.

// catalogIgnoringPolicy catalogs every tool p declares, as a runtime that
// checks policy when it sends a call instead of when it builds the catalog
// would; denied are the ids of the entries the policy denies, which hidden
// (the policy's hidden tools) leaves out (Defects.QueueSkipsPolicy).
func (rt *Runtime) catalogIgnoringPolicy(p protocol.PrepareParams, hidden []protocol.ToolSpec) (*catalog.Catalog, map[string]bool) {
	open := p
	open.Policy = nil
	all, _ := rt.opts.splitDirectOnly(catalog.Effective(open))
	c := catalog.Build(all)
	allowed := map[[3]string]bool{}
	for _, t := range hidden {
		allowed[[3]string{t.Source, t.Owner, t.Name}] = true
	}
	denied := map[string]bool{}
	for _, t := range c.Tools {
		if !allowed[[3]string{t.Spec.Source, t.Spec.Owner, t.Spec.Name}] {
			denied[t.ID] = true
		}
	}
	return c, denied
}

// deniedNow reports whether a call of catalog id is refused: the policy
// denies it and it is sent at once. A call that has to queue is never
// checked (Defects.QueueSkipsPolicy).
func (s *step) deniedNow(id string) bool {
	return s.c.run.denied[id] && !(s.c.calls.Queueing() && s.c.calls.SlotsTaken())
}

// sendQueued sends the queued calls of c, which is ending, to the harness
// on a context of their own, as a queue that flushes instead of dropping
// would (Defects.QueueOutlivesCell).
func (rt *Runtime) sendQueued(c *cell) {
	for _, h := range c.calls.QueuedCalls() {
		if h.Timer() || h.Start != nil {
			continue
		}
		p := protocol.InvokeParams{Run: c.run.id, ToolCallID: c.callID(h.Req.ID), ParentToolCallID: h.Parent,
			CatalogID: h.ToolID, Tool: h.Spec.Name, Source: h.Spec.Source, Owner: h.Spec.Owner, Input: bridge.WellFormedInput(h.Req.Input), Context: c.run.ctx}
		go func() { _, _ = rt.inv.Invoke(context.Background(), p) }()
	}
}
