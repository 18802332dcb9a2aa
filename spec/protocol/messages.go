// Package protocol is the driver protocol between the conformance harness and a
// target: JSON-RPC 2.0, one JSON object per line, both sides sending requests.
// spec/protocol.md is the normative text; this package holds its Go shapes and
// the codec both sides use.
package protocol

import (
	"encoding/json"

	"github.com/codemode-conformance/codemode/spec/config"
)

// Version is the protocol version this package speaks.
const Version = "1"

// Methods. Harness → target unless noted.
const (
	MethodInitialize   = "initialize"
	MethodRunPrepare   = "run.prepare"
	MethodToolExec     = "tool.exec"
	MethodToolWait     = "tool.wait"
	MethodRunAbort     = "run.abort"
	MethodRunEnd       = "run.end"
	MethodRuntimeStats = "runtime.stats"
	MethodShutdown     = "shutdown"
	// MethodToolInvoke is target → harness: a nested call of a harness tool.
	MethodToolInvoke = "tool.invoke"
	// MethodToolCancel is a target → harness notification: stop the nested
	// call toolCallId, the target no longer waits for it (CM-NEST-08).
	MethodToolCancel = "tool.cancel"
)

// JSON-RPC error codes of the protocol (besides the standard -327xx ones).
const (
	// ErrUnknownRun: the `run` named in a request was never prepared or has ended.
	ErrUnknownRun = -32001
	// ErrToolFailed: a tool.invoke whose tool threw; message and data go to the guest.
	ErrToolFailed = -32010
)

// Peer names a harness or an implementation.
type Peer struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// InitializeParams opens a session. Sent once, first.
type InitializeParams struct {
	ProtocolVersion string `json:"protocolVersion"`
	Harness         Peer   `json:"harness"`
	// Token is the session token a listening target may require
	// (spec/protocol.md §2 item 4); empty: none sent.
	Token string `json:"token,omitempty"`
}

// InitializeResult declares the target and its features (see spec/protocol.md
// "Features").
type InitializeResult struct {
	ProtocolVersion string   `json:"protocolVersion"`
	Implementation  Peer     `json:"implementation"`
	Features        []string `json:"features"`
	// Profile is the contract profile the target implements (§9: "v1" or
	// "v2"); empty means "v1".
	Profile string `json:"profile,omitempty"`
	// NotDrivable lists what the target cannot drive (§3): a spec that needs
	// one is skipped with NotDrivablePrefix and the reason, never passed.
	NotDrivable []NotDrivable `json:"notDrivable,omitempty"`
}

// NotDrivable is one thing a target (an adapter in front of another
// implementation) cannot drive: a whole requirement, a protocol surface
// (Surfaces) that any spec using it needs, or a feature (§9) the
// implementation has but the adapter cannot drive, so does not declare.
type NotDrivable struct {
	Requirement string `json:"requirement,omitempty"`
	Surface     string `json:"surface,omitempty"`
	Feature     string `json:"feature,omitempty"`
	Reason      string `json:"reason"`
}

// Surfaces a target can declare not drivable: run.prepare members and methods.
const (
	SurfacePolicy       = "policy"
	SurfaceDisableTools = "disableTools"
	SurfaceRaw          = "raw"
	SurfaceStats        = "runtime.stats"
	SurfaceAbort        = "run.abort"
)

// NotDrivablePrefix starts the skip reason of a spec that needs something
// the target declared not drivable; reports count such requirements as not
// drivable.
const NotDrivablePrefix = "not drivable by the target: "

// Tool sources (CM-CAT-01).
const (
	SourceOpenClaw = "openclaw"
	SourcePlugin   = "plugin"
	SourceMCP      = "mcp"
	SourceClient   = "client"
)

// ToolSpec is one harness-provided tool. Calls reach the harness as tool.invoke.
// Owner is "core" for openclaw tools, the plugin id for plugin tools and the
// client app name for client tools.
type ToolSpec struct {
	Name        string          `json:"name"`
	Label       string          `json:"label,omitempty"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Source      string          `json:"source"`
	Owner       string          `json:"owner"`
	// DirectOnly marks a direct-only tool: under feature direct-only-tools
	// it stays model-visible beside exec/wait and outside the catalog
	// (CM-ACT-08).
	DirectOnly bool `json:"directOnly,omitempty"`
	// ExecutionMode is "sequential" or "parallel" (default); feature
	// execution-mode, CM-NEST-06 (scheduling.go).
	ExecutionMode ExecutionMode `json:"executionMode,omitempty"`
	// ResultContentSource "network" marks a network-controlled tool: its
	// results and errors keep their untrusted-content wrapping (feature
	// untrusted-content, CM-NEST-20; untrusted.go). Empty: trusted.
	ResultContentSource ContentSource `json:"resultContentSource,omitempty"`
	// OutputSchema is the JSON Schema of the tool's result, if it declares
	// one: generation 2 types the output from it, and an output without
	// one is unknown (CM-TS-06, spec/protocol.md §12.13).
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// Policy is the allow/deny tool policy of a run. Entries are tool names or
// owners (a plugin id denies or allows all its tools). A nil Allow allows
// everything; an empty non-nil Allow allows nothing.
type Policy struct {
	Allow []string `json:"allow"`
	Deny  []string `json:"deny,omitempty"`
}

// RunContext is the identity of an agent run (CM-NEST-01).
type RunContext struct {
	AgentID    string `json:"agentId"`
	SessionID  string `json:"sessionId"`
	SessionKey string `json:"sessionKey"`
	SenderID   string `json:"senderId"`
	Channel    string `json:"channel"`
	// Sandbox is the run's sandbox policy (feature sandbox, CM-NEST-10):
	// run.prepare's sandbox member, which every tool call of the run,
	// nested or direct, carries back unchanged. Nil: the run sets none.
	Sandbox *Sandbox `json:"sandbox,omitempty"`
}

// Sandbox is a run's sandbox policy, OpenClaw's agents.*.sandbox (feature
// sandbox, CM-NEST-10). Mode is SandboxOff, SandboxNonMain or SandboxAll.
type Sandbox struct {
	Mode string `json:"mode"`
}

// Sandbox modes (OpenClaw's agents.*.sandbox.mode).
const (
	SandboxOff     = "off"      // no call runs sandboxed
	SandboxNonMain = "non-main" // the calls of sessions other than the agent's main one run sandboxed
	SandboxAll     = "all"      // every call runs sandboxed
)

// Valid reports whether Mode is one of the sandbox modes.
func (s Sandbox) Valid() bool {
	return s.Mode == SandboxOff || s.Mode == SandboxNonMain || s.Mode == SandboxAll
}

// PrepareParams prepares one agent run. Run is chosen by the harness and unique
// per session. CodeMode is the raw `tools.codeMode` value (absent = omitted).
type PrepareParams struct {
	Run string `json:"run"`
	RunContext
	CodeMode json.RawMessage `json:"codeMode,omitempty"`
	// AgentCodeMode is the agent's own tools.codeMode value, laid over
	// CodeMode (the runtime default) field by field (config.MergeAgent,
	// CM-CFG-10); absent: the agent sets none.
	AgentCodeMode json.RawMessage `json:"agentCodeMode,omitempty"`
	Tools         []ToolSpec      `json:"tools"`
	Policy        *Policy         `json:"policy,omitempty"`
	DisableTools  bool            `json:"disableTools,omitempty"`
	// Raw marks a raw model call: no tools at all (CM-ACT-03).
	Raw bool `json:"raw,omitempty"`
	// Namespaces changes the target's namespace registry before this run
	// (feature namespaces, namespaces.go).
	Namespaces *NamespaceChanges `json:"namespaces,omitempty"`
	// Faults asks a target that declares feature fault-injection to simulate
	// failures for this run only (CM-CFG-07). Other targets ignore it.
	Faults *Faults `json:"faults,omitempty"`
	// MCPServers are the MCP servers the run starts or connects to (feature
	// mcp, protocol.md §3 run.prepare). Nil or empty: the run has none.
	MCPServers []MCPServer `json:"mcpServers,omitempty"`
	// Session binds the run to a session branch (feature session-store,
	// store.go). Absent: no bound session.
	Session *Session `json:"session,omitempty"`
	// Hooks and Approvals opt the run into hook.beforeToolCall and
	// approval.request (features hooks and approvals, hooks.go).
	Hooks     *HookOptions     `json:"hooks,omitempty"`
	Approvals *ApprovalOptions `json:"approvals,omitempty"`
}

// MCP server transports in MCPServer.Transport.
const (
	MCPTransportStdio = "stdio"
	MCPTransportHTTP  = "http"
)

// MCPServer is how a target reaches one MCP server (feature mcp). Name is the
// server name the guest sees (MCP.<name>, mcp/<name>.d.ts, catalog ids
// mcp:<name>:<tool>). Transport "stdio": the target starts Command with Args
// and Env (added to its own environment) and speaks MCP over the child's
// stdin/stdout; it stops the child at run.end. Transport "http": the target
// connects to URL with the MCP streamable HTTP transport.
type MCPServer struct {
	Name      string            `json:"name"`
	Transport string            `json:"transport"`
	Command   string            `json:"command,omitempty"`
	Args      []string          `json:"args,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	URL       string            `json:"url,omitempty"`
}

// Faults are simulated failures for one run (feature fault-injection).
type Faults struct {
	// RuntimeUnavailable: behave as if the sandbox engine could not be loaded.
	RuntimeUnavailable bool `json:"runtimeUnavailable,omitempty"`
	// StoreAppendFails: appending a cell's openclaw.code-mode-store
	// transcript entry fails for this run (feature session-store, CM-STO-06).
	StoreAppendFails bool `json:"storeAppendFails,omitempty"`
}

// CancelParams are the params of the tool.cancel notification.
type CancelParams struct {
	Run        string `json:"run"`
	ToolCallID string `json:"toolCallId"`
}

// ModelTool is one tool as the model would see it.
type ModelTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// Failure is a run-level failure (e.g. invalid_config, runtime_unavailable).
type Failure struct {
	Code  string `json:"code"`
	Error string `json:"error"`
}

// PrepareResult is the model-visible surface of the run. When Failure is set
// the run exposes no tools (fail closed, CM-CFG-06/07). EffectiveConfig is
// optional: targets that can report their resolved configuration do.
type PrepareResult struct {
	Run             string         `json:"run"`
	CodeModeActive  bool           `json:"codeModeActive"`
	Tools           []ModelTool    `json:"tools"`
	Failure         *Failure       `json:"failure,omitempty"`
	EffectiveConfig *config.Config `json:"effectiveConfig,omitempty"`
}

// ToolCallParams carries one model tool call (tool.exec / tool.wait). Input is
// the exact model input object; the answer is the exact result object.
type ToolCallParams struct {
	Run        string          `json:"run"`
	ToolCallID string          `json:"toolCallId"`
	Input      json.RawMessage `json:"input"`
	// AssistantResponseID is the id of the assistant response that carried
	// the call (feature nested-activity, protocol.md §4.2): with Run and
	// ToolCallID it is the cell's replay identity (CM-NEST-18). Optional.
	AssistantResponseID string `json:"assistantResponseId,omitempty"`
}

// RunParams names a run (run.abort, run.end).
type RunParams struct {
	Run string `json:"run"`
}

// Stats is runtime.stats: what the target holds right now (CM-RUN-01/02).
type Stats struct {
	LiveVMs       int   `json:"liveVMs"`
	Snapshots     int   `json:"snapshots"`
	SnapshotBytes int64 `json:"snapshotBytes"`
	SuspendedRuns int   `json:"suspendedRuns"`
	Runs          int   `json:"runs"`
	// RunningVMs and WaitingVMs are optional (0 when left out): the VMs
	// executing guest code now, each holding a run slot, and those queued
	// for one (the reference's --max-running-vms; spec/protocol.md §8).
	RunningVMs int `json:"runningVMs,omitempty"`
	WaitingVMs int `json:"waitingVMs,omitempty"`
	// IdleWorkers is optional (nil when left out): the idle executor
	// workers kept for reuse right now, which a Node-executor target
	// (feature node-executor) reports for CM-RUN-08 (spec/protocol.md §8).
	IdleWorkers *int `json:"idleWorkers,omitempty"`
}

// InvokeParams is a nested tool call the target sends back to the harness
// (tool.invoke, CM-NEST-01). ToolCallID is the nested call's id; ParentToolCallID
// is the exec/wait call id that produced it.
type InvokeParams struct {
	Run              string `json:"run"`
	ToolCallID       string `json:"toolCallId"`
	ParentToolCallID string `json:"parentToolCallId"`
	CatalogID        string `json:"catalogId"`
	Tool             string `json:"tool"`
	// Source and Owner repeat the ToolSpec's, so the harness can route two
	// tools with the same name (CM-GUEST-06 collisions).
	Source  string          `json:"source"`
	Owner   string          `json:"owner"`
	Input   json.RawMessage `json:"input"`
	Context RunContext      `json:"context"`
}

// InvokeResult is the tool's result, any JSON value.
type InvokeResult struct {
	Result json.RawMessage `json:"result"`
}
