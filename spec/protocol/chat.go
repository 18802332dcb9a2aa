package protocol

import (
	"encoding/json"
	"strings"
)

// The OpenAI-compatible chat-completions wire format (POST
// {baseUrl}/chat/completions), the subset agent.turn relies on (§3
// "agent.turn"): the target is the client, the harness's fake model
// provider (fakes/provider) the server. A real gateway (OpenClaw's
// /v1/chat/completions) speaks the same shapes.

// ChatMessage is one message of a conversation: role "system", "user",
// "assistant" or "tool".
type ChatMessage struct {
	Role string `json:"role"`
	// Content is the message text: a JSON string, null (an assistant message
	// that only calls tools), or an array of content parts
	// ([{"type":"text","text":…}]) as some clients send. Text flattens it.
	Content json.RawMessage `json:"content,omitempty"`
	// ToolCalls are the assistant's tool calls, in the order the model made them.
	ToolCalls []ChatToolCall `json:"tool_calls,omitempty"`
	// ToolCallID names, on a "tool" message, the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Name is optional; some clients name the tool on a "tool" message.
	Name string `json:"name,omitempty"`
}

// Text is the message's text: the string content, or the text parts joined;
// "" for null or absent content.
func (m ChatMessage) Text() string {
	if len(m.Content) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return ""
}

// TextContent is s as a ChatMessage Content.
func TextContent(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// ChatToolCall is one tool call of an assistant message. Function.Arguments
// is the input as JSON text (a string, as OpenAI sends it).
type ChatToolCall struct {
	ID       string           `json:"id"`
	Type     string           `json:"type"` // "function"
	Function ChatFunctionCall `json:"function"`
}

// ChatFunctionCall is the called tool's name and its input as JSON text.
type ChatFunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ChatTool is one tool offered to the model: {"type":"function","function":{name, description, parameters}}.
type ChatTool struct {
	Type     string       `json:"type"` // "function"
	Function ChatFunction `json:"function"`
}

// ChatFunction is a tool's name, description and JSON Schema of its input.
type ChatFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// ChatRequest is the body of POST /chat/completions. Tools is absent when
// the run offers the model no tools.
type ChatRequest struct {
	Model    string        `json:"model"`
	Messages []ChatMessage `json:"messages"`
	Tools    []ChatTool    `json:"tools,omitempty"`
	Stream   bool          `json:"stream,omitempty"`
	// User is the end user's id; agent.turn sends its `user` here (a real
	// gateway keys the session on it).
	User string `json:"user,omitempty"`
}

// ChatCompletion is a non-streamed answer (object "chat.completion").
type ChatCompletion struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []ChatChoice `json:"choices"`
}

// ChatChoice is one choice; FinishReason is "tool_calls" or "stop".
type ChatChoice struct {
	Index        int         `json:"index"`
	Message      ChatMessage `json:"message"`
	FinishReason string      `json:"finish_reason"`
}

// ChatChunk is one server-sent event of a streamed answer (object
// "chat.completion.chunk"); the stream ends with "data: [DONE]".
type ChatChunk struct {
	ID      string            `json:"id"`
	Object  string            `json:"object"`
	Created int64             `json:"created"`
	Model   string            `json:"model"`
	Choices []ChatChunkChoice `json:"choices"`
}

// ChatChunkChoice carries a delta; FinishReason is set on the last chunk.
type ChatChunkChoice struct {
	Index        int       `json:"index"`
	Delta        ChatDelta `json:"delta"`
	FinishReason *string   `json:"finish_reason"`
}

// ChatDelta is the part of the assistant message a chunk adds.
type ChatDelta struct {
	Role      string              `json:"role,omitempty"`
	Content   string              `json:"content,omitempty"`
	ToolCalls []ChatToolCallDelta `json:"tool_calls,omitempty"`
}

// ChatToolCallDelta is a streamed part of tool call Index: the first one
// carries ID, type and name, later ones more Arguments text.
type ChatToolCallDelta struct {
	Index    int              `json:"index"`
	ID       string           `json:"id,omitempty"`
	Type     string           `json:"type,omitempty"`
	Function ChatFunctionCall `json:"function"`
}
