package protocol

import "encoding/json"

// NamespaceChanges is run.prepare's `namespaces` member: changes to the
// target's process-local namespace registry (keyed by namespace id), applied
// in this order before the run is prepared: ClearAll
// (clearCodeModeNamespacesForTest), ClearPlugins
// (clearCodeModeNamespacesForPlugin, one per id), then Register (each
// replaces a registration with the same id). The registry outlives the run:
// a later run.prepare without `namespaces` sees the same registrations
// (spec/protocol.md §5.5, CM-NS-01..11, CM-ACT-07).
type NamespaceChanges struct {
	ClearAll     bool                    `json:"clearAll,omitempty"`
	ClearPlugins []string                `json:"clearPlugins,omitempty"`
	Register     []NamespaceRegistration `json:"register,omitempty"`
}

// NamespaceRegistration is one registerCodeModeNamespaceForPlugin(pluginId,
// registration) call as data. Scope describes what createScope(ctx) returns
// (a scope node, see the Marker* constants); Shared holds nodes that Scope
// (and other shared nodes) refer to with a ref marker, so one object can
// appear at two paths (shared reference) or inside itself (a cycle, which
// the target must reject). Config is the owning plugin's configuration, what
// the scope factory receives as ctx.config (null when absent).
type NamespaceRegistration struct {
	PluginID          string                     `json:"pluginId"`
	ID                string                     `json:"id"`
	GlobalName        string                     `json:"globalName"`
	Description       string                     `json:"description"`
	Prompt            string                     `json:"prompt,omitempty"`
	RequiredToolNames []string                   `json:"requiredToolNames"`
	Config            json.RawMessage            `json:"config,omitempty"`
	Scope             json.RawMessage            `json:"scope"`
	Shared            map[string]json.RawMessage `json:"shared,omitempty"`
}

// MarkerKey is the member that makes a JSON object of a scope description a
// marker instead of plain data; its value is one of the Marker* kinds.
const MarkerKey = "$codemode"

// Scope marker kinds (spec/protocol.md §5.5).
const (
	// MarkerTool is createCodeModeNamespaceTool(tool, inputMapper):
	// {"$codemode":"tool","tool":"<tool name>","input":<InputMapper>?}.
	MarkerTool = "tool"
	// MarkerFunction is a raw host function the factory returned
	// ({"$codemode":"function","name":"<name>"}): always rejected (CM-NS-07).
	MarkerFunction = "function"
	// MarkerRef is {"$codemode":"ref","name":"<key of shared>"}.
	MarkerRef = "ref"
	// MarkerContext is {"$codemode":"context","key":"<ContextKey>"}: the
	// value of the factory's ctx for this run (CM-NS-04).
	MarkerContext = "context"
	// MarkerNonJSON is a value JSON cannot hold:
	// {"$codemode":"nonJson","type":"<NonJSON type>","text":"<its text>"};
	// the target turns it into a JSON-safe fallback (CM-NS-08).
	MarkerNonJSON = "nonJson"
)

// Context keys of a MarkerContext: what createScope(ctx) receives.
// ContextInstance is an id the target makes fresh at every createScope call,
// so a guest can tell one call per run from one per cell.
const (
	ContextAgentID    = "agentId"
	ContextSessionKey = "sessionKey"
	ContextSessionID  = "sessionId"
	ContextRunID      = "runId"
	ContextConfig     = "config"
	ContextAborted    = "aborted"
	ContextInstance   = "instance"
)

// NonJSON types of a MarkerNonJSON.
const (
	NonJSONUndefined = "undefined"
	NonJSONNaN       = "nan"
	NonJSONInfinity  = "infinity"
	NonJSONBigInt    = "bigint"
	NonJSONDate      = "date"
	NonJSONSymbol    = "symbol"
	NonJSONBinary    = "binary"
	NonJSONInstance  = "instance"
)

// InputMapper is a tool marker's inputMapper as data. Kind "first" (the
// default when the marker has no input) passes the first guest argument, or
// {} when it is absent or null; kind "positional" builds an object whose
// member Names[i] is the i-th guest argument (members past the arguments
// given are left out) (CM-NS-06).
type InputMapper struct {
	Kind  string   `json:"kind"`
	Names []string `json:"names,omitempty"`
}

// Input mapper kinds.
const (
	MapperFirst      = "first"
	MapperPositional = "positional"
)

// NamespacePathSeparator joins the segments of a callable's path in a
// namespace call; a scope key containing it is unsafe (CM-NS-07).
const NamespacePathSeparator = "."
