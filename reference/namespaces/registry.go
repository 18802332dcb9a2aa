// Package namespaces is the reference's plugin namespace registry and its
// per-run runtime (CM-NS-01..11, CM-ACT-07): a process-local registry keyed
// by namespace id, the visibility and ownership rules, the scope factory and
// the serialisation of a scope into the plain descriptor the guest prelude
// turns into globals, and the resolution of a guest namespace call to the
// catalog tool it may run. Registrations arrive as data in run.prepare
// (spec/protocol.md §5.5); this package never runs guest code and never
// dispatches a call itself: the caller runs the resolved catalog call
// through the same executor as tools.call.
package namespaces

import (
	"fmt"
	"sort"
	"sync"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Registry holds the registrations of one process, keyed by namespace id.
// Safe for concurrent use.
type Registry struct {
	mu    sync.Mutex
	byID  map[string]protocol.NamespaceRegistration
	bytes map[string]int // each registration's size (registrationBytes)
	total int            // their sum
}

// Bounds of a registry (issue 28 nits: 20 × 1,000 registrations of 4 KB
// each held 77 MB until clearAll, and 10,000 visible namespaces made a
// 249 KB exec description). A registration past either is refused with
// ErrInvalidRegistration naming the bound; clearAll and clearPlugins make
// room again.
const (
	MaxRegistrations      = 1024
	MaxRegistrationsBytes = 16 << 20
)

// registrationBytes is the size reg holds: its strings and JSON texts.
func registrationBytes(reg protocol.NamespaceRegistration) int {
	n := len(reg.PluginID) + len(reg.ID) + len(reg.GlobalName) + len(reg.Description) + len(reg.Prompt) + len(reg.Config) + len(reg.Scope)
	for _, t := range reg.RequiredToolNames {
		n += len(t)
	}
	for k, v := range reg.Shared {
		n += len(k) + len(v)
	}
	return n
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byID: map[string]protocol.NamespaceRegistration{}, bytes: map[string]int{}}
}

// Register adds reg (registerCodeModeNamespaceForPlugin), replacing a
// registration with the same id. It refuses, with ErrInvalidRegistration,
// a registration without plugin id, id or scope; the rules of CM-NS-07
// (globalName included) are checked per run, before any guest code runs
// (NewRun), as spec/protocol.md §5.5 asks.
func (r *Registry) Register(reg protocol.NamespaceRegistration) error {
	switch {
	case reg.PluginID == "":
		return fmt.Errorf("%w: pluginId is empty", ErrInvalidRegistration)
	case reg.ID == "":
		return fmt.Errorf("%w: id is empty (plugin %q)", ErrInvalidRegistration, reg.PluginID)
	case len(reg.Scope) == 0:
		return fmt.Errorf("%w: namespace %q has no scope", ErrInvalidRegistration, reg.ID)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	size := registrationBytes(reg)
	_, replaces := r.byID[reg.ID]
	if !replaces && len(r.byID) >= MaxRegistrations {
		return fmt.Errorf("%w: namespace %q: the registry holds %d registrations, its limit (clearAll or clearPlugins first)", ErrInvalidRegistration, reg.ID, MaxRegistrations)
	}
	if total := r.total - r.bytes[reg.ID] + size; total > MaxRegistrationsBytes {
		return fmt.Errorf("%w: namespace %q (%d bytes) would make the registry hold %d bytes, over its limit of %d (clearAll or clearPlugins first)", ErrInvalidRegistration, reg.ID, size, total, MaxRegistrationsBytes)
	}
	r.total += size - r.bytes[reg.ID]
	r.byID[reg.ID] = reg
	r.bytes[reg.ID] = size
	return nil
}

// ClearPlugin removes every registration of pluginID
// (clearCodeModeNamespacesForPlugin: rollback, disable, uninstall; CM-NS-09)
// and returns how many it removed.
func (r *Registry) ClearPlugin(pluginID string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for id, reg := range r.byID {
		if reg.PluginID == pluginID {
			delete(r.byID, id)
			r.total -= r.bytes[id]
			delete(r.bytes, id)
			n++
		}
	}
	return n
}

// ClearAll removes every registration (clearCodeModeNamespacesForTest).
func (r *Registry) ClearAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byID = map[string]protocol.NamespaceRegistration{}
	r.bytes, r.total = map[string]int{}, 0
}

// Apply applies run.prepare's namespace changes in their order: clear all,
// clear plugins, register. A registration Register refuses stops it there
// (what came before stays applied).
func (r *Registry) Apply(ch *protocol.NamespaceChanges) error {
	if ch == nil {
		return nil
	}
	if ch.ClearAll {
		r.ClearAll()
	}
	for _, p := range ch.ClearPlugins {
		r.ClearPlugin(p)
	}
	for _, reg := range ch.Register {
		if err := r.Register(reg); err != nil {
			return err
		}
	}
	return nil
}

// List returns every registration, by namespace id.
func (r *Registry) List() []protocol.NamespaceRegistration {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]protocol.NamespaceRegistration, 0, len(r.byID))
	for _, reg := range r.byID {
		out = append(out, reg)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
