package framework

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// Scope-description builders (spec/protocol.md §5.5). Each returns a node of
// a NamespaceRegistration's scope or shared nodes, as a value to marshal.

// NamespaceTool is createCodeModeNamespaceTool(tool) with the default input
// mapper (first argument or {}).
func NamespaceTool(tool string) map[string]any {
	return map[string]any{protocol.MarkerKey: protocol.MarkerTool, "tool": tool}
}

// NamespaceToolPositional is createCodeModeNamespaceTool(tool, ([a, b]) =>
// ({a, b})) for the member names given.
func NamespaceToolPositional(tool string, names ...string) map[string]any {
	return map[string]any{protocol.MarkerKey: protocol.MarkerTool, "tool": tool,
		"input": protocol.InputMapper{Kind: protocol.MapperPositional, Names: names}}
}

// RawFunction is a host function returned by createScope (always rejected).
func RawFunction(name string) map[string]any {
	return map[string]any{protocol.MarkerKey: protocol.MarkerFunction, "name": name}
}

// SharedRef refers to the registration's shared node name.
func SharedRef(name string) map[string]any {
	return map[string]any{protocol.MarkerKey: protocol.MarkerRef, "name": name}
}

// ScopeContext is createScope's ctx[key] for the run.
func ScopeContext(key string) map[string]any {
	return map[string]any{protocol.MarkerKey: protocol.MarkerContext, "key": key}
}

// NonJSON is a value JSON cannot hold, of a protocol.NonJSON* type.
func NonJSON(typ, text string) map[string]any {
	return map[string]any{protocol.MarkerKey: protocol.MarkerNonJSON, "type": typ, "text": text}
}

// Registration builds a namespace registration; scope and every shared
// node are marshalled to JSON (a failure to marshal fails the spec).
func Registration(pluginID, id, globalName string, required []string, scope any, shared map[string]any) protocol.NamespaceRegistration {
	ginkgo.GinkgoHelper()
	raw := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "marshalling a namespace scope description")
		return b
	}
	reg := protocol.NamespaceRegistration{PluginID: pluginID, ID: id, GlobalName: globalName, RequiredToolNames: required,
		Description: fmt.Sprintf("%s helpers of plugin %s.", globalName, pluginID), Scope: raw(scope)}
	if len(shared) > 0 {
		reg.Shared = map[string]json.RawMessage{}
		for k, v := range shared {
			reg.Shared[k] = raw(v)
		}
	}
	return reg
}

// NamespaceRun prepares a run whose run.prepare first clears the target's
// namespace registry (clearCodeModeNamespacesForTest) and then applies
// o.Namespaces, so no registration of an earlier spec leaks in. When the
// spec ends, one more run.prepare clears the registry again, so none of its
// registrations leaks into later specs of the session.
func NamespaceRun(ctx context.Context, o RunOptions) *Run {
	ginkgo.GinkgoHelper()
	ch := protocol.NamespaceChanges{ClearAll: true}
	if o.Namespaces != nil {
		ch.ClearPlugins = o.Namespaces.ClearPlugins
		ch.Register = o.Namespaces.Register
	}
	o.Namespaces = &ch
	ginkgo.DeferCleanup(clearNamespaces)
	return NewRun(ctx, o)
}

// clearNamespaces empties the target's namespace registry with a run that
// has no tools, and ends that run.
func clearNamespaces() {
	t := T()
	if !t.Alive() {
		return
	}
	id := fmt.Sprintf("namespace-clear-%d", runSeq.Add(1))
	p := protocol.PrepareParams{Run: id, RunContext: protocol.RunContext{AgentID: "agent-" + id, SessionID: "session-" + id,
		SessionKey: "agent:agent-" + id + ":session-" + id, SenderID: "sender-" + id, Channel: "conformance"},
		Tools: []protocol.ToolSpec{}, Namespaces: &protocol.NamespaceChanges{ClearAll: true}}
	cctx, cancel := context.WithTimeout(context.Background(), Timeouts.Call)
	defer cancel()
	var res protocol.PrepareResult
	if err := t.Call(cctx, protocol.MethodRunPrepare, p, &res); err == nil {
		_ = t.Call(cctx, protocol.MethodRunEnd, protocol.RunParams{Run: id}, nil)
	}
}
