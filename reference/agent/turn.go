package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// DefaultMaxSteps bounds a turn's provider requests when agent.turn gives
// no maxSteps; MaxSteps bounds the value it may give.
const (
	DefaultMaxSteps = 16
	MaxSteps        = 64
)

// MaxTranscript bounds the bytes of a turn's messages (its own, without the
// history): every provider request resends them, and the result carries
// them, so a model answering each step with 8 MiB of tool calls would
// otherwise send gigabytes over a turn. Passing it fails the turn with
// provider_error.
const MaxTranscript = 16 << 20

// Surface is a prepared run as a turn needs it.
type Surface struct {
	Run     string
	Context protocol.RunContext
	// Active is true when code mode is active: Tools is exec, wait and the
	// direct-only tools.
	Active bool
	// Tools is the run's model-visible surface (run.prepare's tools), in order.
	Tools []protocol.ModelTool
	// Direct are the model-visible tools that a model call runs as one
	// tool.invoke, by name: every tool when code mode is off, the
	// direct-only tools when it is on.
	Direct map[string]Direct
}

// Direct is a model-visible harness tool and its catalog id.
type Direct struct {
	CatalogID string
	Spec      protocol.ToolSpec
}

// Host runs a turn's tool calls: exec and wait in the run's code mode,
// direct tools as a tool.invoke to the harness. Exec and Wait return the
// result object (§6); an error is a protocol fault, not a failed cell.
// responseID names the assistant response that carried the call (the
// assistantResponseId of protocol.md §4.2; the turn's user and step).
type Host interface {
	Exec(ctx context.Context, run, toolCallID, responseID string, input json.RawMessage) (json.RawMessage, error)
	Wait(ctx context.Context, run, toolCallID, responseID string, input json.RawMessage) (json.RawMessage, error)
	Invoke(ctx context.Context, p protocol.InvokeParams, responseID string) (json.RawMessage, error)
}

// ErrBadTurn wraps the errors of agent.turn params that cannot start a turn.
var ErrBadTurn = errors.New("invalid agent.turn params")

// Check validates p's required members (protocol.md §3 "agent.turn").
func Check(p protocol.AgentTurnParams) error {
	switch {
	case p.Run == "":
		return fmt.Errorf("%w: run must be a non-empty string", ErrBadTurn)
	case p.Provider.BaseURL == "":
		return fmt.Errorf("%w: provider.baseUrl must be a non-empty URL", ErrBadTurn)
	case p.Provider.Model == "":
		return fmt.Errorf("%w: provider.model must be non-empty", ErrBadTurn)
	case p.User == "":
		return fmt.Errorf("%w: user must be a non-empty string", ErrBadTurn)
	case p.Message == "":
		return fmt.Errorf("%w: message must be a non-empty string", ErrBadTurn)
	case p.MaxSteps < 0 || p.MaxSteps > MaxSteps:
		return fmt.Errorf("%w: maxSteps %d is outside 0..%d", ErrBadTurn, p.MaxSteps, MaxSteps)
	}
	return nil
}

// Turn runs one agent turn (protocol.md §3 "agent.turn"): request, final
// check, tool calls fed back as "tool" messages, until the model answers
// without tool calls. faults honours p.Faults (feature fault-injection).
// A failed turn is a result with status "failed" and the transcript so far.
func Turn(ctx context.Context, hc *http.Client, s Surface, h Host, p protocol.AgentTurnParams, faults bool) protocol.AgentTurnResult {
	res := protocol.AgentTurnResult{Run: p.Run, Status: protocol.TurnCompleted,
		Messages: []protocol.ChatMessage{{Role: "user", Content: protocol.TextContent(p.Message)}}}
	fail := func(code, msg string) protocol.AgentTurnResult {
		res.Status, res.Code, res.Error = protocol.TurnFailed, code, msg
		return res
	}
	size := messageBytes(res.Messages[0])
	steps := p.MaxSteps
	if steps == 0 {
		steps = DefaultMaxSteps
	}
	var tools []protocol.ChatTool
	for _, t := range s.Tools {
		tools = append(tools, protocol.ChatTool{Type: "function", Function: protocol.ChatFunction{Name: t.Name, Description: t.Description, Parameters: t.InputSchema}})
	}
	if faults && p.Faults != nil && p.Faults.AddProviderTool != "" {
		// A later stage adding a tool (CM-ACT-09): the final check must catch it.
		tools = append(tools, protocol.ChatTool{Type: "function", Function: protocol.ChatFunction{Name: p.Faults.AddProviderTool,
			Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}})
	}
	for step := 0; step < steps; step++ {
		req := protocol.ChatRequest{Model: p.Provider.Model, Stream: true, User: p.User, Tools: tools,
			Messages: append(slices.Clone(p.History), res.Messages...)}
		if err := FinalCheck(s, req); err != nil {
			return fail(protocol.TurnToolSurfaceMismatch, err.Error())
		}
		rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		msg, err := Complete(rctx, hc, p.Provider.BaseURL, req)
		cancel()
		if err == nil {
			err = checkCalls(msg.ToolCalls)
		}
		if err != nil {
			return fail(protocol.TurnProviderError, err.Error())
		}
		msg.Role = "assistant"
		res.Messages = append(res.Messages, msg)
		size += messageBytes(msg)
		if len(msg.ToolCalls) == 0 {
			res.Text = msg.Text()
			return res
		}
		for _, c := range msg.ToolCalls {
			if size > MaxTranscript {
				break
			}
			// Providers may reuse call ids across answers: the response id
			// keeps nested ids apart (CM-NEST-18).
			responseID := fmt.Sprintf("%s/step-%d", p.User, step+1)
			tm := protocol.ChatMessage{Role: "tool", ToolCallID: c.ID, Content: protocol.TextContent(run(ctx, s, h, c, responseID))}
			res.Messages = append(res.Messages, tm)
			size += messageBytes(tm)
		}
		if size > MaxTranscript {
			return fail(protocol.TurnProviderError, fmt.Sprintf("the turn's messages passed %d bytes after %d provider requests; the model's tool calls were not all run", MaxTranscript, step+1))
		}
	}
	return fail(protocol.TurnMaxSteps, fmt.Sprintf("the model still called tools after %d provider requests", steps))
}

// MaxCallsPerAnswer bounds the tool calls of one provider answer.
const MaxCallsPerAnswer = 128

// checkCalls refuses an answer whose tool calls cannot be answered: each
// "tool" message names its call by id, so an empty or repeated id would
// make a transcript the model (and any real provider) cannot match up, and
// the id is the toolCallId of tool.exec, unique per run (protocol.md §3).
func checkCalls(calls []protocol.ChatToolCall) error {
	if len(calls) > MaxCallsPerAnswer {
		return fmt.Errorf("%w: %d tool calls in one answer, at most %d", ErrProvider, len(calls), MaxCallsPerAnswer)
	}
	seen := make(map[string]int, len(calls))
	for i, c := range calls {
		if c.ID == "" {
			return fmt.Errorf("%w: tool call %d (%q) has no id", ErrProvider, i, c.Function.Name)
		}
		if j, dup := seen[c.ID]; dup {
			return fmt.Errorf("%w: tool calls %d and %d share the id %q", ErrProvider, j, i, c.ID)
		}
		seen[c.ID] = i
	}
	return nil
}

// messageBytes is the size of m's JSON text.
func messageBytes(m protocol.ChatMessage) int {
	b, _ := json.Marshal(m)
	return len(b)
}

// FinalCheck is CM-ACT-09: with code mode active, the payload's tools must
// be exactly the run's surface (exec, wait, the direct-only tools), or
// nothing is sent.
func FinalCheck(s Surface, req protocol.ChatRequest) error {
	if !s.Active {
		return nil
	}
	var want, got []string
	for _, t := range s.Tools {
		want = append(want, t.Name)
	}
	for _, t := range req.Tools {
		got = append(got, t.Function.Name)
	}
	if !slices.Equal(want, got) {
		return fmt.Errorf("code mode is active but the provider payload's tools %v are not the run's surface %v; the request was not sent", got, want)
	}
	return nil
}

// run runs one tool call and returns the tool message content: the
// result's JSON text; for an exec/wait result marked networkContent, that
// text wrapped as untrusted content (cellText).
func run(ctx context.Context, s Surface, h Host, c protocol.ChatToolCall, responseID string) string {
	input := json.RawMessage(c.Function.Arguments)
	if !json.Valid(input) {
		// The model's malformed input goes to the tool as it is, as a string.
		input, _ = json.Marshal(c.Function.Arguments)
	}
	visible := slices.ContainsFunc(s.Tools, func(t protocol.ModelTool) bool { return t.Name == c.Function.Name })
	var out json.RawMessage
	var err error
	cell := false // an exec/wait result, which a network mark wraps (§4.3)
	switch d, direct := s.Direct[c.Function.Name]; {
	case !visible:
		err = fmt.Errorf("tool %q is not available in this run", c.Function.Name)
	case direct:
		out, err = h.Invoke(ctx, protocol.InvokeParams{Run: s.Run, ToolCallID: c.ID, CatalogID: d.CatalogID, Tool: d.Spec.Name,
			Source: d.Spec.Source, Owner: d.Spec.Owner, Input: input, Context: s.Context}, responseID)
	case s.Active && c.Function.Name == "exec":
		out, err = h.Exec(ctx, s.Run, c.ID, responseID, input)
		cell = true
	case s.Active && c.Function.Name == "wait":
		out, err = h.Wait(ctx, s.Run, c.ID, responseID, input)
		cell = true
	default:
		err = fmt.Errorf("tool %q cannot be run by the reference's agent loop", c.Function.Name)
	}
	if err != nil {
		b, _ := json.Marshal(map[string]string{"error": err.Error()})
		return string(b)
	}
	if len(out) == 0 {
		return "null"
	}
	if cell {
		return cellText(out)
	}
	return string(out)
}
