// Package provider is the harness's fake model provider: an
// OpenAI-compatible chat-completions server on 127.0.0.1 that a target's
// agent turn (protocol.md §3 "agent.turn") talks to. A spec drives it with a
// Script, one Step per provider request: call exec, call wait, call a direct
// tool, or answer with final text. It records every request (tools,
// messages, tool results) for assertions and can save them as JSON into the
// run's results dir for the report.
//
// Routes: POST /v1/chat/completions (SSE when the request says
// "stream": true, one JSON chat.completion otherwise) and GET /v1/models.
// Errors are OpenAI-shaped ({"error":{"message","type"}}) with a 4xx/5xx
// status: a body over MaxBody, malformed JSON, no messages, or a request
// after the script ran out.
package provider

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// MaxBody bounds a request body (bytes).
const MaxBody = 8 << 20

// MaxRecorded and MaxRecordedBytes bound what the server keeps (requests,
// and the bytes of their bodies): a target that keeps asking after the
// script ran out, or resends megabytes each time, must not grow the
// harness's memory (and the saved JSON) without end. A request past either
// bound is answered 429 and only counted (Summary says how many).
const (
	MaxRecorded      = 1024
	MaxRecordedBytes = 64 << 20
)

// Model is the model id the provider serves.
const Model = "codemode-fake"

// Reply is what the model answers to one request: tool calls, or final
// Text when there are none.
type Reply struct {
	ToolCalls []ToolCall
	Text      string
	// Again keeps the step: it also answers the next request.
	Again bool
}

// ToolCall is one tool call of a Reply. ID is filled in ("call_<n>",
// unique per server) when empty; Input is marshalled as the call's arguments.
type ToolCall struct {
	ID    string
	Name  string
	Input any
}

// Step answers one provider request; it sees the request (and so the tool
// results of the previous step). An error is answered as a 500 and recorded.
type Step func(Request) (Reply, error)

// Request is one recorded provider request.
type Request struct {
	// Seq counts requests from 1.
	Seq  int       `json:"seq"`
	Time time.Time `json:"time"`
	protocol.ChatRequest
	// Reply is what the provider answered ("" tool calls and text when it
	// answered an error); Error is that error.
	Reply *RecordedReply `json:"reply,omitempty"`
	Error string         `json:"error,omitempty"`
}

// RecordedReply is the answer a request got, as the model would give it.
type RecordedReply struct {
	ToolCalls []protocol.ChatToolCall `json:"tool_calls,omitempty"`
	Text      string                  `json:"text,omitempty"`
}

// ToolNames is the names of the request's tools, sorted: the order of a
// chat-completions tool list carries no meaning to the model, and gateways
// reorder it (OpenClaw sorts by name).
func (r Request) ToolNames() []string {
	names := make([]string, 0, len(r.Tools))
	for _, t := range r.Tools {
		names = append(names, t.Function.Name)
	}
	slices.Sort(names)
	return names
}

// ToolResults are the request's "tool" messages by tool_call_id, the
// results the target fed back.
func (r Request) ToolResults() map[string]string {
	out := map[string]string{}
	for _, m := range r.Messages {
		if m.Role == "tool" {
			out[m.ToolCallID] = m.Text()
		}
	}
	return out
}

// LastToolResult is the text of the last "tool" message, "" without one.
func (r Request) LastToolResult() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "tool" {
			return r.Messages[i].Text()
		}
	}
	return ""
}

// Exec calls exec with {code}.
func Exec(code string) Step { return Call("exec", map[string]any{"code": code}) }

// Call calls a tool (a direct tool, or exec/wait with a hand-made input).
func Call(name string, input any) Step {
	return func(Request) (Reply, error) {
		return Reply{ToolCalls: []ToolCall{{Name: name, Input: input}}}, nil
	}
}

// Final answers with text and no tool call: the turn ends.
func Final(text string) Step {
	return func(Request) (Reply, error) { return Reply{Text: text}, nil }
}

// WaitLast calls wait with the runId of the last tool result (an exec or
// wait result that came back waiting). It fails the request when the last
// tool result has no runId.
func WaitLast() Step {
	return func(r Request) (Reply, error) {
		var res struct {
			RunID string `json:"runId"`
		}
		last := r.LastToolResult()
		if err := json.Unmarshal([]byte(resultJSON(last)), &res); err != nil || res.RunID == "" {
			return Reply{}, fmt.Errorf("script step wait: the last tool result has no runId: %.300q", last)
		}
		return Reply{ToolCalls: []ToolCall{{Name: "wait", Input: map[string]any{"runId": res.RunID}}}}, nil
	}
}

// Settle calls wait {runId} while the last tool result is waiting (the
// step answers again), then answers with that result as the final text:
// the model follows a suspended cell to its end.
func Settle() Step { return SettleWhen(nil) }

// SettleWhen is Settle that, before each wait it calls, runs ready (when
// not nil) with the waiting result's JSON text; ready returns once the
// model has something to wait for (a pending nested call returned, say: a
// target may answer a wait at once while its call is still pending,
// spec/protocol.md §10, and a model that calls wait again at once only
// spends the turn's steps).
func SettleWhen(ready func(result []byte)) Step {
	return func(r Request) (Reply, error) {
		var res struct {
			Status string `json:"status"`
			RunID  string `json:"runId"`
		}
		last := r.LastToolResult()
		if json.Unmarshal([]byte(resultJSON(last)), &res) == nil && res.Status == "waiting" && res.RunID != "" {
			if ready != nil {
				ready([]byte(resultJSON(last)))
			}
			return Reply{ToolCalls: []ToolCall{{Name: "wait", Input: map[string]any{"runId": res.RunID}}}, Again: true}, nil
		}
		return Reply{Text: last}, nil
	}
}

// resultJSON is the JSON text of an exec/wait result as the model reads
// it: the text itself, or, when that is no JSON, the content of the
// untrusted-content wrapper around it (a result marked networkContent,
// protocol.md §4.3).
func resultJSON(text string) string {
	if !json.Valid([]byte(text)) {
		if u, ok := protocol.FindUntrusted(text); ok {
			return u.Content
		}
	}
	return text
}

// FinalFromLast answers with the last tool result as the final text.
func FinalFromLast() Step {
	return func(r Request) (Reply, error) { return Reply{Text: r.LastToolResult()}, nil }
}

// Server is a running fake provider. Its methods are safe for concurrent use.
type Server struct {
	// URL is the OpenAI base URL: "http://127.0.0.1:<port>/v1".
	URL string

	srv   *http.Server
	ln    net.Listener
	mu    sync.Mutex
	steps []Step
	next  int
	calls int
	reqs  []Request
	// kept is the body bytes of reqs; refused counts requests past the
	// bounds.
	kept, refused int
}

// ErrScriptExhausted is the error of a request that came after the last step.
var ErrScriptExhausted = errors.New("the provider script has no step left")

// Start serves script on 127.0.0.1 (a free port). Close stops it.
func Start(script ...Step) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fake provider: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String() + "/v1", ln: ln, steps: script}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.completions)
	mux.HandleFunc("GET /v1/models", s.models)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Requests is a copy of every request so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Remaining is the number of script steps not used yet.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.steps) - s.next
}

// JSON is the recorded requests as indented JSON (for failure messages and
// reports).
func (s *Server) JSON() string {
	b, err := json.MarshalIndent(s.Requests(), "", "  ")
	if err != nil {
		return fmt.Sprintf("(requests not marshallable: %v)", err)
	}
	return string(b)
}

// Save writes the recorded requests, as indented JSON, to dir/file (dir
// is created) and returns the path; FileName names file.
func (s *Server) Save(dir, file string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, file)
	return p, os.WriteFile(p, []byte(s.JSON()+"\n"), 0o644)
}

// maxSpecBytes bounds the spec part of a FileName, so that the name stays
// within every file system's limit (255 bytes).
const maxSpecBytes = 120

// FileName names the saved requests of a run's index-th provider (from 1)
// that spec started: "NNNN-<spec>.json", the spec text cut at maxSpecBytes
// and made file-safe (every byte but A-Z, a-z, 0-9, '-', '_' and '.'
// becomes '_'). The index keeps names of specs that share a prefix, and of
// one spec's several providers, apart.
func FileName(index int, spec string) string {
	b := []byte(spec)
	if len(b) > maxSpecBytes {
		b = b[:maxSpecBytes]
	}
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	return fmt.Sprintf("%04d-%s.json", index, b)
}

func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []map[string]any{
		{"id": Model, "object": "model", "created": 0, "owned_by": "codemode-conformance"}}})
}

func (s *Server) completions(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body: %v (limit %d bytes)", err, MaxBody))
		return
	}
	var req protocol.ChatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("request body is not a chat completion request: %v", err))
		return
	}
	if len(req.Messages) == 0 {
		writeError(w, http.StatusBadRequest, "messages is empty")
		return
	}
	s.mu.Lock()
	if len(s.reqs) >= MaxRecorded || s.kept+len(body) > MaxRecordedBytes {
		s.refused++
		s.mu.Unlock()
		writeError(w, http.StatusTooManyRequests, fmt.Sprintf("fake provider: it keeps at most %d requests and %d bytes of them; this one is refused", MaxRecorded, MaxRecordedBytes))
		return
	}
	s.kept += len(body)
	rec := Request{Seq: len(s.reqs) + 1, Time: time.Now().UTC(), ChatRequest: req}
	var step Step
	at := s.next
	if at < len(s.steps) {
		step = s.steps[at]
	}
	s.mu.Unlock()

	var reply Reply
	if step == nil {
		err = fmt.Errorf("%w (request %d)", ErrScriptExhausted, rec.Seq)
	} else {
		reply, err = step(rec)
		if err != nil || !reply.Again {
			s.mu.Lock()
			if s.next == at {
				s.next++
			}
			s.mu.Unlock()
		}
	}
	var calls []protocol.ChatToolCall
	if err == nil {
		calls, err = s.toolCalls(reply)
	}
	if err != nil {
		rec.Error = err.Error()
		s.record(rec)
		writeError(w, http.StatusInternalServerError, "fake provider: "+err.Error())
		return
	}
	rec.Reply = &RecordedReply{ToolCalls: calls, Text: reply.Text}
	s.record(rec)
	id := fmt.Sprintf("chatcmpl-%d", rec.Seq)
	if req.Stream {
		stream(w, id, calls, reply.Text)
		return
	}
	finish := "stop"
	msg := protocol.ChatMessage{Role: "assistant", ToolCalls: calls}
	if len(calls) > 0 {
		finish = "tool_calls"
		msg.Content = json.RawMessage("null")
	} else {
		msg.Content = protocol.TextContent(reply.Text)
	}
	writeJSON(w, http.StatusOK, protocol.ChatCompletion{ID: id, Object: "chat.completion", Created: time.Now().Unix(),
		Model: Model, Choices: []protocol.ChatChoice{{Message: msg, FinishReason: finish}}})
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r)
}

// toolCalls gives each call an id and its arguments as JSON text.
func (s *Server) toolCalls(r Reply) ([]protocol.ChatToolCall, error) {
	var out []protocol.ChatToolCall
	for _, c := range r.ToolCalls {
		args, err := json.Marshal(c.Input)
		if err != nil {
			return nil, fmt.Errorf("script step: input of %s: %w", c.Name, err)
		}
		id := c.ID
		if id == "" {
			s.mu.Lock()
			s.calls++
			id = fmt.Sprintf("call_%d", s.calls)
			s.mu.Unlock()
		}
		out = append(out, protocol.ChatToolCall{ID: id, Type: "function", Function: protocol.ChatFunctionCall{Name: c.Name, Arguments: string(args)}})
	}
	return out, nil
}

// stream writes the answer as OpenAI chat.completion.chunk events: the
// role, the text or each tool call (name, then its arguments), the finish
// reason, then [DONE].
func stream(w http.ResponseWriter, id string, calls []protocol.ChatToolCall, text string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	created := time.Now().Unix()
	send := func(d protocol.ChatDelta, finish *string) {
		b, _ := json.Marshal(protocol.ChatChunk{ID: id, Object: "chat.completion.chunk", Created: created, Model: Model,
			Choices: []protocol.ChatChunkChoice{{Delta: d, FinishReason: finish}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	send(protocol.ChatDelta{Role: "assistant"}, nil)
	finish := "stop"
	if len(calls) == 0 {
		// Two chunks, so a client must join the text.
		half := len(text) / 2
		for half > 0 && half < len(text) && !utf8Start(text[half]) {
			half--
		}
		for _, part := range []string{text[:half], text[half:]} {
			if part != "" {
				send(protocol.ChatDelta{Content: part}, nil)
			}
		}
	} else {
		finish = "tool_calls"
		for i, c := range calls {
			send(protocol.ChatDelta{ToolCalls: []protocol.ChatToolCallDelta{{Index: i, ID: c.ID, Type: "function",
				Function: protocol.ChatFunctionCall{Name: c.Function.Name}}}}, nil)
			send(protocol.ChatDelta{ToolCalls: []protocol.ChatToolCallDelta{{Index: i,
				Function: protocol.ChatFunctionCall{Arguments: c.Function.Arguments}}}}, nil)
		}
	}
	send(protocol.ChatDelta{}, &finish)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
}

// Summary is a short text of the recorded requests: per request its tool
// names, the tool results it carried, and the reply (for failure messages).
func (s *Server) Summary() string {
	var b strings.Builder
	for _, r := range s.Requests() {
		fmt.Fprintf(&b, "request %d: tools %v, %d messages", r.Seq, r.ToolNames(), len(r.Messages))
		for _, m := range r.Messages {
			if m.Role == "tool" {
				fmt.Fprintf(&b, "\n  tool result %s: %.300s", m.ToolCallID, m.Text())
			}
		}
		switch {
		case r.Error != "":
			fmt.Fprintf(&b, "\n  answered error: %s", r.Error)
		case r.Reply != nil && len(r.Reply.ToolCalls) > 0:
			for _, c := range r.Reply.ToolCalls {
				fmt.Fprintf(&b, "\n  replied tool call %s %s %.300s", c.ID, c.Function.Name, c.Function.Arguments)
			}
		case r.Reply != nil:
			fmt.Fprintf(&b, "\n  replied text %.300q", r.Reply.Text)
		}
		b.WriteString("\n")
	}
	s.mu.Lock()
	refused := s.refused
	s.mu.Unlock()
	if refused > 0 {
		fmt.Fprintf(&b, "%d more requests refused (past %d requests or %d bytes)\n", refused, MaxRecorded, MaxRecordedBytes)
	}
	if b.Len() == 0 {
		return "(the provider received no request)"
	}
	return b.String()
}
