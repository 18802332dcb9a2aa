package framework

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/creachadair/jrpc2"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// run.update (feature results, spec/protocol.md §3): a catalog replacement,
// a restriction (permission change) or attaching client tools to a prepared
// run. The router learns the new tool list first, so a nested call of a tool
// the update removed is refused and reported, and one of a tool it added is
// answered.

// ReplaceTools replaces the run's harness tools by ts (run.update
// replaceTools): a new catalog and, per CM-RES-03, a new results store.
func (r *Run) ReplaceTools(ctx context.Context, ts ...tools.Tool) {
	ginkgo.GinkgoHelper()
	specs := r.addTools(ts)
	r.update(ctx, protocol.UpdateParams{Run: r.ID, ReplaceTools: specs}, func(p *protocol.PrepareParams) []protocol.ToolSpec {
		old := p.Tools
		p.Tools = slices.Clone(specs)
		return old
	})
}

// RestrictTo keeps only the catalog entries of the named tools (run.update
// restrictTo): a permission change.
func (r *Run) RestrictTo(ctx context.Context, names ...string) {
	ginkgo.GinkgoHelper()
	names = append([]string{}, names...) // present even when empty
	r.update(ctx, protocol.UpdateParams{Run: r.ID, RestrictTo: names}, func(p *protocol.PrepareParams) []protocol.ToolSpec {
		old := p.Tools
		p.Tools = slices.DeleteFunc(slices.Clone(p.Tools), func(t protocol.ToolSpec) bool { return !slices.Contains(names, t.Name) })
		return old
	})
}

// AttachClientTools adds client tools (source "client") to the run's
// catalog (run.update attachClientTools); the results store stays.
func (r *Run) AttachClientTools(ctx context.Context, ts ...tools.Tool) {
	ginkgo.GinkgoHelper()
	specs := r.addTools(ts)
	r.update(ctx, protocol.UpdateParams{Run: r.ID, AttachClientTools: specs}, func(p *protocol.PrepareParams) []protocol.ToolSpec {
		old := p.Tools
		p.Tools = append(slices.Clone(p.Tools), specs...)
		return old
	})
}

// update sends run.update. A target that declared the surface run.update not
// drivable, or answers -32601 (it has no such method), skips the spec as not
// drivable with its reason; any other protocol error fails it.
func (r *Run) update(ctx context.Context, p protocol.UpdateParams, retool func(*protocol.PrepareParams) (old []protocol.ToolSpec)) {
	ginkgo.GinkgoHelper()
	RequireDrivable(protocol.SurfaceRunUpdate)
	t := T()
	op, _ := p.Operation()
	t.router.retool(r.ID, op, retool)
	cctx, cancel := context.WithTimeout(ctx, Timeouts.Call)
	defer cancel()
	var ok bool
	err := t.Call(cctx, protocol.MethodRunUpdate, p, &ok)
	r.log(protocol.MethodRunUpdate, p, ok, err)
	var je *jrpc2.Error
	if errors.As(err, &je) && je.Code == jrpc2.MethodNotFound {
		ginkgo.Skip(fmt.Sprintf("%s%s: the target answered -32601 (%s) (requirement %s)", protocol.NotDrivablePrefix, protocol.SurfaceRunUpdate, je.Message, currentRequirement()))
	}
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "run.update failed at the protocol level: %+v", p)
	gomega.Expect(ok).To(gomega.BeTrue(), "run.update must answer true: %+v", p)
}

// retool changes the tool list the router checks nested calls of run
// against (run.update operation op); a call of a tool it removed is
// refused naming CM-RES-07.
func (r *router) retool(run, op string, change func(*protocol.PrepareParams) (old []protocol.ToolSpec)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rr, ok := r.runs[run]
	if !ok {
		return
	}
	old := change(&rr.prep)
	if rr.removed == nil {
		rr.removed = map[string]string{}
	}
	for _, t := range rr.prep.Tools {
		delete(rr.removed, t.Source+":"+t.Owner+":"+t.Name)
	}
	for _, t := range old {
		if !slices.ContainsFunc(rr.prep.Tools, func(n protocol.ToolSpec) bool {
			return n.Source == t.Source && n.Owner == t.Owner && n.Name == t.Name
		}) {
			rr.removed[t.Source+":"+t.Owner+":"+t.Name] = op
		}
	}
}

// addTools adds ts to the run's harness tools and returns their specs, for a
// run.update that declares them.
func (r *Run) addTools(ts []tools.Tool) []protocol.ToolSpec {
	specs := make([]protocol.ToolSpec, 0, len(ts))
	for _, t := range ts {
		r.Tools.Add(t)
		specs = append(specs, t.Spec)
	}
	return specs
}
