package namespaces

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Catalog is what a run's namespaces need of its catalog.
type Catalog interface {
	// Owned returns the catalog id of the tool named name whose sourceName
	// is pluginID (source plugin or client, owner pluginID), if the run's
	// catalog holds one the guest may call.
	Owned(pluginID, name string) (catalogID string, ok bool)
}

// Context is what createScope(ctx) receives (CM-NS-04); the registration's
// config is added per namespace.
type Context struct {
	AgentID, SessionKey, SessionID, RunID string
	Aborted                               bool
}

// Namespace is one namespace visible in a run, with its serialised scope.
type Namespace struct {
	Registration protocol.NamespaceRegistration
	Descriptor   Descriptor
	callables    map[string]callable
}

// Run is the namespaces of one agent run: the visible registrations, each
// scope created once for the run. Err, when set, is the first registration
// rejected under CM-NS-07: every exec of the run fails with it before guest
// code runs.
type Run struct {
	Visible []*Namespace
	byID    map[string]*Namespace
	Err     error
}

// Visible reports whether reg is visible with catalog cat: every required
// tool is in the catalog with sourceName equal to the plugin id (CM-NS-02).
func Visible(reg protocol.NamespaceRegistration, cat Catalog) bool {
	for _, n := range reg.RequiredToolNames {
		if _, ok := cat.Owned(reg.PluginID, n); !ok {
			return false
		}
	}
	return true
}

// NewRun keeps the visible registrations of regs and calls each one's scope
// factory for ctx: once per run, and never for a hidden namespace
// (CM-NS-04). instance names each factory call (the context key instance).
func NewRun(regs []protocol.NamespaceRegistration, cat Catalog, ctx Context, instance func() string) *Run {
	r := &Run{byID: map[string]*Namespace{}}
	names := map[string]string{}
	for _, reg := range regs {
		if !Visible(reg, cat) {
			continue
		}
		if err := checkGlobalName(reg.GlobalName); err != nil {
			r.fail(reg, err)
			continue
		}
		if other, dup := names[reg.GlobalName]; dup {
			r.fail(reg, fmt.Errorf("%w: namespace %q also uses globalName %q", ErrBuiltinCollision, other, reg.GlobalName))
			continue
		}
		s := &serializer{reg: reg, ctx: ctx, instance: instance()}
		d, err := s.serialize()
		if err != nil {
			r.fail(reg, err)
			continue
		}
		names[reg.GlobalName] = reg.ID
		ns := &Namespace{Registration: reg, Descriptor: d, callables: s.callables}
		r.Visible = append(r.Visible, ns)
		r.byID[reg.ID] = ns
	}
	return r
}

func (r *Run) fail(reg protocol.NamespaceRegistration, err error) {
	if r.Err == nil {
		r.Err = fmt.Errorf("namespace %q of plugin %q was rejected before any guest code ran: %w", reg.ID, reg.PluginID, err)
	}
}

// Descriptors lists the visible namespaces' descriptors for the guest.
func (r *Run) Descriptors() []Descriptor {
	out := make([]Descriptor, 0, len(r.Visible))
	for _, ns := range r.Visible {
		out = append(out, ns.Descriptor)
	}
	return out
}

// Prompt is what the visible namespaces add to the exec description: each
// one's globalName, description and prompt, or "" when none is visible
// (CM-ACT-07).
func (r *Run) Prompt() string {
	if r == nil || len(r.Visible) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Namespaces (also under namespaces.<name>):")
	for _, ns := range r.Visible {
		reg := ns.Registration
		fmt.Fprintf(&b, "\n- %s: %s", reg.GlobalName, reg.Description)
		if reg.Prompt != "" {
			b.WriteString(" " + reg.Prompt)
		}
	}
	return b.String()
}

// Resolve turns a guest call of path in namespace nsID with the guest's
// arguments (a JSON array) into the catalog id to call and its input. It
// checks, on every call, that the namespace is visible in this run, that
// path is one of its callables, that the callable's tool is declared and
// owned by the namespace's plugin in cat (CM-NS-03), and maps the
// arguments (CM-NS-06). The caller dispatches the result exactly as
// tools.call(catalogID, input) (CM-NS-05).
func (r *Run) Resolve(nsID, path string, args json.RawMessage, cat Catalog) (catalogID string, input json.RawMessage, err error) {
	if r == nil {
		return "", nil, fmt.Errorf("%w: no namespace is visible in this run", ErrForged)
	}
	ns, ok := r.byID[nsID]
	if !ok {
		return "", nil, fmt.Errorf("%w: no namespace %q is visible in this run", ErrForged, nsID)
	}
	c, ok := ns.callables[path]
	if !ok {
		return "", nil, fmt.Errorf("%w: namespace %q has no callable at path %q", ErrForged, ns.Registration.GlobalName, path)
	}
	declared := false
	for _, n := range ns.Registration.RequiredToolNames {
		declared = declared || n == c.tool
	}
	if !declared {
		return "", nil, fmt.Errorf("%w: %q", ErrUndeclaredTool, c.tool)
	}
	id, ok := cat.Owned(ns.Registration.PluginID, c.tool)
	if !ok {
		return "", nil, fmt.Errorf("%w: %q of plugin %q", ErrNotOwned, c.tool, ns.Registration.PluginID)
	}
	in, err := mapInput(c.mapper, args)
	if err != nil {
		return "", nil, err
	}
	return id, in, nil
}

// mapInput applies an input mapper to the guest's arguments (CM-NS-06).
func mapInput(m protocol.InputMapper, args json.RawMessage) (json.RawMessage, error) {
	var list []json.RawMessage
	if len(args) > 0 {
		if err := json.Unmarshal(args, &list); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadArgs, err)
		}
	}
	if m.Kind == protocol.MapperPositional {
		o := object{}
		for i, n := range m.Names {
			if i >= len(list) {
				break
			}
			o = append(o, member{n, list[i]})
		}
		return json.Marshal(o)
	}
	if len(list) == 0 || string(list[0]) == "null" {
		return json.RawMessage("{}"), nil
	}
	return list[0], nil
}

// isIdentifier reports whether name is an ECMAScript IdentifierName: a
// first code point of ID_Start, $ or _, then ID_Continue, $, ZWNJ or ZWJ
// (Unicode letters and digits, not only ASCII: ಠ_ಠ is one; issue 28 nits).
// ID_Start is approximated by the letters and letter numbers, ID_Continue
// adds the marks, decimal digits and connector punctuation.
func isIdentifier(name string) bool {
	if name == "" || !utf8.ValidString(name) {
		return false
	}
	for i, r := range name {
		start := r == '$' || r == '_' || unicode.In(r, unicode.L, unicode.Nl, unicode.Other_ID_Start)
		if i == 0 && !start {
			return false
		}
		if i > 0 && !start && r != 0x200c && r != 0x200d && !unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue) {
			return false
		}
	}
	return true
}

// builtinGlobals are the code mode built-ins (CM-NS-07), the guest API of
// profile v2's stores (results, store, load: §12.11) and catalog surface
// (catalog: §12.13) and the reference's own bridge global; standardGlobals
// the ECMAScript globals, and the timers the prelude defines under v2
// (bridge-queue), that a namespace must not shadow either: refused here,
// before the exec description advertises the namespace.
var builtinGlobals = []string{"ALL_TOOLS", "tools", "MCP", "API", "namespaces", "text", "json", "yield_control", "results", "store", "load", "catalog", "__codemode"}

var standardGlobals = strings.Fields(`globalThis undefined NaN Infinity eval isFinite isNaN parseFloat parseInt
decodeURI decodeURIComponent encodeURI encodeURIComponent escape unescape Object Function Array Number String
Boolean Symbol BigInt Math JSON Reflect Proxy Promise Date RegExp Error AggregateError EvalError RangeError
ReferenceError SyntaxError TypeError URIError InternalError Map Set WeakMap WeakSet WeakRef FinalizationRegistry
ArrayBuffer SharedArrayBuffer DataView Atomics Int8Array Uint8Array Uint8ClampedArray Int16Array Uint16Array
Int32Array Uint32Array Float16Array Float32Array Float64Array BigInt64Array BigUint64Array Iterator console
queueMicrotask structuredClone performance navigator setTimeout clearTimeout setInterval clearInterval`)

// reservedWords are not identifiers although they match the pattern.
var reservedWords = strings.Fields(`await break case catch class const continue debugger default delete do else enum
export extends false finally for function if implements import in instanceof interface let new null package
private protected public return static super switch this throw true try typeof var void while with yield arguments`)

func checkGlobalName(name string) error {
	if !isIdentifier(name) {
		return fmt.Errorf("%w: %q", ErrGlobalName, name)
	}
	for _, w := range reservedWords {
		if name == w {
			return fmt.Errorf("%w: %q is a reserved word", ErrGlobalName, name)
		}
	}
	if strings.HasPrefix(name, "__openclaw") {
		return fmt.Errorf("%w: %q (the __openclaw* prefix is reserved)", ErrBuiltinCollision, name)
	}
	for _, b := range append(builtinGlobals, standardGlobals...) {
		if name == b {
			return fmt.Errorf("%w: %q", ErrBuiltinCollision, name)
		}
	}
	return nil
}
