// Package result holds the model-facing shapes of code mode: the exec and wait
// inputs and the result union every exec/wait call returns.
//
// Source: 000 [`exec`], [`wait`], [API di output], [Codici di errore];
// requirements CM-EXEC-01, CM-EXEC-05, CM-GUEST-07.
package result

import "encoding/json"

// Status is the discriminator of the result union (CM-EXEC-05).
type Status string

// The three result statuses.
const (
	StatusCompleted Status = "completed"
	StatusWaiting   Status = "waiting"
	StatusFailed    Status = "failed"
)

// Reason says why a waiting result suspended (CM-EXEC-05, CM-GUEST-09).
type Reason string

// Waiting reasons.
const (
	ReasonPendingTools Reason = "pending_tools"
	ReasonYield        Reason = "yield"
)

// ExecInput is the model's input to the exec tool. Exactly one of Code and
// Command must be non-empty, or both equal (CM-EXEC-01, CM-EXEC-02); Language
// defaults to "javascript" (CM-EXEC-03). Fields are pointers so that "absent"
// and "empty" stay distinguishable on the wire.
type ExecInput struct {
	Code     *string `json:"code,omitempty"`
	Command  *string `json:"command,omitempty"`
	Language *string `json:"language,omitempty"`
}

// WaitInput is the model's input to the wait tool (CM-EXEC-08).
type WaitInput struct {
	RunID string `json:"runId"`
}

// Output is one item of a cell's output, in call order (CM-GUEST-07):
// {"type":"text","text":...} or {"type":"json","value":...}.
type Output struct {
	Type  string          `json:"type"`
	Text  *string         `json:"text,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
}

// TextOutput returns a text output item.
func TextOutput(s string) Output { return Output{Type: "text", Text: &s} }

// JSONOutput returns a json output item holding raw (already JSON) value.
func JSONOutput(raw json.RawMessage) Output { return Output{Type: "json", Value: raw} }

// PendingToolCall names a nested tool call still in flight when a cell
// suspended (CM-EXEC-05).
type PendingToolCall struct {
	ID     string `json:"id"`
	ToolID string `json:"toolId"`
}

// Telemetry is the per-result telemetry object (CM-EXEC-05, CM-TEL-01). Every
// field is optional on the wire except that the object itself must be present.
type Telemetry struct {
	VisibleTools   []string       `json:"visibleTools,omitempty"`
	CatalogSize    int            `json:"catalogSize"`
	CatalogSources map[string]int `json:"catalogSources,omitempty"`
	ExecCount      int            `json:"execCount"`
	WaitCount      int            `json:"waitCount"`
	SearchCount    int            `json:"searchCount"`
	DescribeCount  int            `json:"describeCount"`
	CallCount      int            `json:"callCount"`
	CalledToolIDs  []string       `json:"calledToolIds,omitempty"`
	LimitFailures  []ErrorCode    `json:"limitFailures,omitempty"`
	DurationMs     int64          `json:"durationMs"`
	// SnapshotEvents are the lifecycle events of the run's snapshots since
	// the run's previous exec/wait result, oldest first (CM-TEL-03,
	// protocol.md §6).
	SnapshotEvents []SnapshotEvent `json:"snapshotEvents,omitempty"`
}

// Snapshot lifecycle events (CM-TEL-03).
const (
	SnapshotCreated  = "created"  // a cell suspended into this snapshot
	SnapshotRestored = "restored" // wait restored it into a VM (the stored snapshot is consumed)
	SnapshotExpired  = "expired"  // it outlived snapshotTtlSeconds and was deleted
	SnapshotDeleted  = "deleted"  // it was deleted without a restore: abort, run end, a refused restore
)

// KindContinuation is the SnapshotEvent kind of a target that keeps a
// waiting cell as a live continuation, not a snapshot (protocol.md §6, §8).
const KindContinuation = "continuation"

// SnapshotEvent is one snapshot lifecycle event: Event is one of the
// Snapshot* constants, RunID the waiting cell's runId, Bytes the snapshot's
// size (as counted against maxSnapshotBytes; a snapshot executor reports
// it), Kind "" for a snapshot or KindContinuation for a live continuation,
// which has no Bytes.
type SnapshotEvent struct {
	Event string `json:"event"`
	RunID string `json:"runId"`
	Bytes int64  `json:"bytes,omitempty"`
	Kind  string `json:"kind,omitempty"`
}

// Result is the union returned by exec and wait (CM-EXEC-05):
//
//	completed {value, output?, telemetry}
//	waiting   {runId, reason, pendingToolCalls?, output?, telemetry}
//	failed    {error, code?, line?, output?, telemetry}
//
// Value is raw JSON so that a suite can compare it byte-for-byte; it is
// omitted (not null) only when the status is not completed.
type Result struct {
	Status           Status            `json:"status"`
	Value            json.RawMessage   `json:"value,omitempty"`
	RunID            string            `json:"runId,omitempty"`
	Reason           Reason            `json:"reason,omitempty"`
	PendingToolCalls []PendingToolCall `json:"pendingToolCalls,omitempty"`
	Error            string            `json:"error,omitempty"`
	Code             ErrorCode         `json:"code,omitempty"`
	// Line is the 1-based line of the cell's source (the TypeScript source
	// of a typescript cell) where an uncaught guest error was raised, when
	// known (protocol.md §12.8, CM-TS-05); failed results only.
	Line      int        `json:"line,omitempty"`
	Output    []Output   `json:"output,omitempty"`
	Telemetry *Telemetry `json:"telemetry"`
	// NetworkContent is true when the cell saw network-controlled content
	// (feature untrusted-content, CM-NEST-20, CM-RES-08, CM-STO-11): the
	// model receives this result wrapped as untrusted external content
	// (spec/protocol.md §4.3). Any status.
	NetworkContent bool `json:"networkContent,omitempty"`
}

// MarshalJSON keeps `value` present (as null) on completed results whose value
// is JSON null or absent, since `value` is required for completed.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	p := plain(r)
	if p.Status == StatusCompleted && len(p.Value) == 0 {
		p.Value = json.RawMessage("null")
	}
	if p.Telemetry == nil {
		p.Telemetry = &Telemetry{}
	}
	return json.Marshal(p)
}

// Failed builds a failed result with code and message.
func Failed(code ErrorCode, msg string) Result {
	return Result{Status: StatusFailed, Code: code, Error: msg}
}
