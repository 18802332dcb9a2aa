// Package prelude holds the guest prelude: the JavaScript evaluated in every
// fresh QuickJS context before the model's code, defining the guest API
// (CM-GUEST-01..11) and the guest half of the bridge queue.
package prelude

import (
	_ "embed"
	"encoding/json"
)

// preludeSource is prelude.js.
//
//go:embed prelude.js
var preludeSource string

// Source is the script evaluated as Filename: the store installer
// (store.js) and the namespace builder (namespaces.js), which prelude.js
// takes before any guest code runs, then prelude.js. A package-level
// expression (not an init func) so that Scripts, which depends on it, sees
// the whole text.
var Source = storeSource + namespacesSource + preludeSource

// Filename is the script name the prelude is evaluated under.
const Filename = "codemode-prelude.js"

// Entry is one catalog entry as the guest sees it (CM-GUEST-02, CM-GUEST-04).
type Entry struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Label       string          `json:"label,omitempty"`
	Description string          `json:"description"`
	Source      string          `json:"source"`
	SourceName  string          `json:"sourceName,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	// The generation-2 catalog surface (Boot.Handles, catalog.js, CM-TS-06):
	// the callable name, the one-line input and output signatures and the
	// declared output schema.
	CallableName string          `json:"callableName,omitempty"`
	Input        string          `json:"input,omitempty"`
	Output       string          `json:"output,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// Boot is the argument of the bridge's boot, as JSON.
type Boot struct {
	// Results and Store install the globals of store.js (features results
	// and session-store).
	Results bool `json:"results,omitempty"`
	Store   bool `json:"store,omitempty"`
	// Catalog are the guest's catalog entries. They never enter the VM:
	// Boot indexes them (unless Index is set) and the VM's query host
	// function serves them (CatalogIndex, issue 28 N3).
	Catalog []Entry `json:"-"`
	// Index is Catalog already indexed; a run shares one among its cells.
	Index *CatalogIndex `json:"-"`
	// CatalogCopy is the broken variant codemode.Defects.CatalogInVM: the
	// entries copied into the VM, which keeps its boot config.
	CatalogCopy        []Entry `json:"catalogCopy,omitempty"`
	MaxOutputBytes     int64   `json:"maxOutputBytes"`
	SearchDefaultLimit int64   `json:"searchDefaultLimit"`
	MaxSearchLimit     int64   `json:"maxSearchLimit"`
	// Namespaces are the run's visible namespace descriptors
	// (reference/namespaces.Descriptor, namespaces.js).
	Namespaces any `json:"namespaces,omitempty"`
	// MCP is the run's MCP table (mcp.go); nil without visible MCP servers.
	MCP *MCPBoot `json:"mcp,omitempty"`
	// Handles defines generation 2's catalog surface (catalog.js; feature
	// javascript-only, CM-TS-06): the catalog global and an async global
	// per callable entry of Catalog.
	Handles bool `json:"handles,omitempty"`
	// APIFiles are virtual files API.list/API.read serve beside the MCP
	// ones: the tools/<callable>.d.ts declarations under Handles.
	APIFiles []MCPFile `json:"apiFiles,omitempty"`
	// Timers defines setTimeout and clearTimeout (timers.js; feature
	// bridge-queue, CM-NEST-13).
	Timers bool `json:"timers,omitempty"`
}

// Poll is what the bridge's poll reports. It comes from guest memory and is
// untrusted: the host validates it.
type Poll struct {
	State    string            `json:"state"`
	Pending  int               `json:"pending"`
	Counts   map[string]int    `json:"counts"`
	Output   []json.RawMessage `json:"output"`
	Requests []Request         `json:"requests"`
	Fatal    *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"fatal"`
	Value   json.RawMessage `json:"value"`
	Failure *struct {
		Name    string `json:"name"`
		Message string `json:"message"`
		Code    string `json:"code"`
		// Line and Column (1-based) are where the error was made in the
		// evaluated cell body, 0 when unknown (CM-TS-05).
		Line   int `json:"line"`
		Column int `json:"column"`
	} `json:"failure"`
}

// Request is one guest → host bridge request.
type Request struct {
	// Key is the reference or key of a store.js operation.
	Key    string          `json:"key,omitempty"`
	ID     int64           `json:"id"`
	Op     string          `json:"op"`
	Tool   string          `json:"tool"`
	Input  json.RawMessage `json:"input"`
	Reason string          `json:"reason"`
	// Namespace, Path and Args are a namespace call's (op "namespace").
	Namespace string          `json:"namespace,omitempty"`
	Path      string          `json:"path,omitempty"`
	Args      json.RawMessage `json:"args,omitempty"`
	// Timer and Ms are a timer's (ops "timer", "clearTimer"; timers.js):
	// the guest's timer number and its delay in milliseconds.
	Timer int64 `json:"timer,omitempty"`
	Ms    int64 `json:"ms,omitempty"`
}

// Delivery settles one request.
type Delivery struct {
	ID    int64           `json:"id"`
	OK    bool            `json:"ok"`
	Value json.RawMessage `json:"value,omitempty"`
	Error json.RawMessage `json:"error,omitempty"`
}
