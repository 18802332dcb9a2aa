package protocol

import "encoding/json"

// Partial updates of tool calls (feature streaming, CM-NEST-11;
// spec/protocol.md §4 "Partial updates").
const (
	// MethodToolUpdate is the harness → target notification by which a
	// harness tool emits one partial update while its tool.invoke is
	// outstanding (OpenClaw: the tool calls its execute's onUpdate).
	MethodToolUpdate = "tool.update"
	// MethodToolProgress is the target → harness notification that
	// forwards one partial update to the caller of the tool call, as it
	// arrives and before the call's answer.
	MethodToolProgress = "tool.progress"
)

// ToolUpdateParams are tool.update's params: ToolCallID names the outstanding
// tool.invoke (its toolCallId); Partial is the update, any JSON.
type ToolUpdateParams struct {
	Run        string          `json:"run"`
	ToolCallID string          `json:"toolCallId"`
	Partial    json.RawMessage `json:"partial"`
}

// ProgressParams are tool.progress's params. ToolCallID is the model's
// call the update belongs to: for a nested call the exec/wait it was made
// under (its parentToolCallId), for a direct call of agent.turn the call
// itself. NestedToolCallID is the nested call's toolCallId; empty for a
// direct call. Partial is the tool's update, unchanged.
type ProgressParams struct {
	Run              string          `json:"run"`
	ToolCallID       string          `json:"toolCallId"`
	NestedToolCallID string          `json:"nestedToolCallId,omitempty"`
	Partial          json.RawMessage `json:"partial"`
}

// ProgressSink receives tool.progress notifications on the harness side: a
// Gates given to NewClient that also implements it gets them, in the order
// they arrived. Malformed ones are dropped.
type ProgressSink interface {
	Progress(p ProgressParams)
}
