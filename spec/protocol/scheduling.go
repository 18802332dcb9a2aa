package protocol

import "encoding/json"

// ExecutionMode is how a tool's nested calls are scheduled (ToolSpec
// executionMode, feature execution-mode, CM-NEST-06). Empty means parallel.
type ExecutionMode string

const (
	// ExecutionParallel calls overlap with other parallel calls, up to
	// maxPendingToolCalls in flight (CM-NEST-04).
	ExecutionParallel ExecutionMode = "parallel"
	// ExecutionSequential calls wait until every earlier catalog call of the
	// cell has settled and delivered, and block later calls until their own
	// result has been delivered to the guest (CM-NEST-06).
	ExecutionSequential ExecutionMode = "sequential"
)

// Valid reports whether m is empty, parallel or sequential.
func (m ExecutionMode) Valid() bool {
	return m == "" || m == ExecutionParallel || m == ExecutionSequential
}

// MethodRunTrajectory (harness → target, feature trajectory) returns the
// tool calls of a run as its transcript would hold them (CM-NEST-07,
// CM-E2E-08). Params RunParams; result TrajectoryResult.
const MethodRunTrajectory = "run.trajectory"

// TrajectoryResult is the answer to run.trajectory.
type TrajectoryResult struct {
	Run string `json:"run"`
	// Calls are the run's tool calls in the order they started: each exec
	// and wait call, and each nested call under the exec/wait it was made in.
	Calls []TrajectoryCall `json:"calls"`
	// Truncated is true when the target stopped recording (it bounds a
	// trajectory; the reference at 4096 calls).
	Truncated bool `json:"truncated,omitempty"`
	// Entries are the custom transcript entries the run appended, in order:
	// one openclaw.code-mode-store entry per committed cell (feature
	// session-store, CM-STO-05). Absent when there are none.
	Entries []StoreEntry `json:"entries,omitempty"`
}

// TrajectoryCall is one tool call of a trajectory.
type TrajectoryCall struct {
	// ToolCallID is the model's call id for exec/wait, the nested call id
	// (the toolCallId of its tool.invoke) for a nested call.
	ToolCallID string `json:"toolCallId"`
	// ParentToolCallID is empty for exec/wait; for a nested call it is the
	// exec/wait call id it was made under (tool.invoke's parentToolCallId).
	ParentToolCallID string `json:"parentToolCallId,omitempty"`
	// Tool is "exec" or "wait", or the nested tool's name.
	Tool string `json:"tool"`
	// CatalogID is the nested tool id (§5.4); empty for exec/wait.
	CatalogID string `json:"catalogId,omitempty"`
	// Input is the model's input (exec/wait) or the nested call's input.
	Input json.RawMessage `json:"input"`
	// Status is the exec/wait result status (completed, waiting, failed;
	// "running" while it runs), or, for a nested call, "ok", "error",
	// "cancelled" or "pending".
	Status string `json:"status"`
	// AssistantResponseID is the assistantResponseId of an exec/wait call
	// (tool.exec/tool.wait), when it had one (view replay, §4.2).
	AssistantResponseID string `json:"assistantResponseId,omitempty"`
	// DisplayOnly marks a nested-activity row (view activity, §4.2,
	// CM-NEST-17): display data, never replayed to the provider.
	DisplayOnly bool `json:"displayOnly,omitempty"`
}
