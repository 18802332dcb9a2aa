package protocol

// MethodAgentTurn (harness → target, feature agent-turn) runs one agent turn
// of a prepared run against the model provider the params name (§3
// "agent.turn", CM-E2E-01..09, CM-ACT-09, CM-CFG-10). Params AgentTurnParams;
// result AgentTurnResult.
const MethodAgentTurn = "agent.turn"

// AgentTurnParams asks the target to run one agent turn.
type AgentTurnParams struct {
	// Run is a prepared run: the turn offers the model that run's
	// model-visible tools (run.prepare's result) and runs exec/wait and
	// direct tool calls in it.
	Run string `json:"run"`
	// Provider is the OpenAI-compatible model provider of the turn.
	Provider ProviderRef `json:"provider"`
	// User is a fresh end-user/session id, sent as the chat request's user.
	User string `json:"user"`
	// Message is the user message that starts the turn.
	Message string `json:"message"`
	// History is a persisted transcript (the messages of earlier turns, as
	// agent.turn returned them) sent before Message (CM-E2E-09).
	History []ChatMessage `json:"history,omitempty"`
	// MaxSteps bounds the provider requests of the turn; 0 means the
	// target's default (the reference: 16).
	MaxSteps int `json:"maxSteps,omitempty"`
	// Faults, only for targets declaring fault-injection: AddProviderTool
	// names a tool that a stage after activation adds to the provider
	// payload, so the harness can see the final check fail closed (CM-ACT-09).
	Faults *AgentTurnFaults `json:"faults,omitempty"`
}

// ProviderRef names the model provider: BaseURL is the OpenAI-compatible
// base (requests go to BaseURL + "/chat/completions"), Model the model id.
type ProviderRef struct {
	BaseURL string `json:"baseUrl"`
	Model   string `json:"model"`
}

// AgentTurnFaults are the fault-injection hooks of agent.turn.
type AgentTurnFaults struct {
	AddProviderTool string `json:"addProviderTool,omitempty"`
}

// Agent turn statuses and failure codes.
const (
	TurnCompleted = "completed"
	TurnFailed    = "failed"
	// TurnProviderError: the provider answered with an error or an
	// unreadable body.
	TurnProviderError = "provider_error"
	// TurnToolSurfaceMismatch: the final provider payload's tools were not
	// exactly the run's surface (CM-ACT-09); nothing was sent.
	TurnToolSurfaceMismatch = "tool_surface_mismatch"
	// TurnMaxSteps: the model still called tools after MaxSteps requests.
	TurnMaxSteps = "max_steps"
)

// AgentTurnResult is the answer to agent.turn. A turn that fails (the
// provider, the final check, the step bound) is a result with Status
// "failed", never a JSON-RPC error.
type AgentTurnResult struct {
	Run    string `json:"run"`
	Status string `json:"status"`
	// Text is the model's final text (Status completed).
	Text string `json:"text,omitempty"`
	// Code and Error say why a failed turn failed.
	Code  string `json:"code,omitempty"`
	Error string `json:"error,omitempty"`
	// Messages is the turn's transcript, in order: the user message, each
	// assistant message (with its tool calls' ids, names and inputs), each
	// tool message (tool_call_id and the result as JSON text), and the
	// final assistant message. History is not repeated.
	Messages []ChatMessage `json:"messages"`
}
