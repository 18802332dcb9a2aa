package codemode

import (
	"fmt"

	"github.com/codemode-conformance/codemode/reference/bridge"
	"github.com/codemode-conformance/codemode/reference/catalog"
	"github.com/codemode-conformance/codemode/reference/namespaces"
	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// ApplyNamespaces applies run.prepare's namespace registry changes
// (feature namespaces, spec/protocol.md §5.5). A malformed registration is
// an error of the request (namespaces.ErrInvalidRegistration).
func (rt *Runtime) ApplyNamespaces(ch *protocol.NamespaceChanges) error {
	return rt.ns.Apply(ch)
}

// ownedTools answers namespaces.Catalog from a run's catalog: a tool's
// sourceName is its owner for the plugin and client sources (CM-CAT-01).
type ownedTools struct{ c *catalog.Catalog }

func (o ownedTools) Owned(pluginID, name string) (string, bool) {
	if o.c == nil {
		return "", false
	}
	for _, t := range o.c.Tools {
		if t.Spec.Name == name && t.Spec.Owner == pluginID &&
			(t.Spec.Source == protocol.SourcePlugin || t.Spec.Source == protocol.SourceClient) {
			return t.ID, true
		}
	}
	return "", false
}

// prepareNamespaces creates the scopes of the namespaces visible in an
// active run, once for the run (CM-NS-04), and adds their description and
// prompt to the exec description (CM-ACT-07).
func (rt *Runtime) prepareNamespaces(r *agentRun, surface []protocol.ModelTool) {
	ctx := namespaces.Context{AgentID: r.ctx.AgentID, SessionKey: r.ctx.SessionKey, SessionID: r.ctx.SessionID, RunID: r.id}
	r.spaces = namespaces.NewRun(rt.ns.List(), ownedTools{r.catalog()}, ctx, func() string {
		return fmt.Sprintf("%s/scope-%d", r.id, rt.seq.Add(1))
	})
	if p := r.spaces.Prompt(); p != "" {
		for i := range surface {
			if surface[i].Name == "exec" {
				surface[i].Description += "\n" + p
			}
		}
	}
}

// namespaceFailure is the registration the run's namespaces rejected, if
// any: every exec fails with it before guest code runs (CM-NS-07).
func (r *agentRun) namespaceFailure() error {
	if r.spaces == nil {
		return nil
	}
	return r.spaces.Err
}

func (r *agentRun) namespaceDescriptors() any {
	if r.spaces == nil || len(r.spaces.Visible) == 0 {
		return nil
	}
	return r.spaces.Descriptors()
}

// resolveNamespaceCall turns a guest namespace request into the catalog
// call it stands for, checked on the host (the guest is hostile: forged ids
// and paths are refused, CM-NS-03). ok is false with d, the guest's
// catchable invalid_input error, when the request is refused.
func (s *step) resolveNamespaceCall(q prelude.Request) (prelude.Request, prelude.Delivery, bool) {
	id, input, err := s.c.run.spaces.Resolve(q.Namespace, q.Path, q.Args, ownedTools{s.c.run.catalog()})
	if err != nil {
		return q, bridge.ErrorDelivery(q.ID, "ToolError", err.Error(), "invalid_input", nil), false
	}
	q.Op, q.Tool, q.Input = "call", id, input
	return q, prelude.Delivery{}, true
}
