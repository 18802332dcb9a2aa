package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/onsi/gomega"
)

// scripted is a minimal provider: each request gets the next answer, as a
// stream of chunks; it keeps the requests.
type scripted struct {
	answers []protocol.ChatMessage
	reqs    []protocol.ChatRequest
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req protocol.ChatRequest
	_ = json.NewDecoder(r.Body).Decode(&req)
	s.reqs = append(s.reqs, req)
	if len(s.reqs) > len(s.answers) {
		http.Error(w, `{"error":{"message":"no answer left"}}`, http.StatusInternalServerError)
		return
	}
	a := s.answers[len(s.reqs)-1]
	w.Header().Set("Content-Type", "text/event-stream")
	var d protocol.ChatDelta
	d.Content = a.Text()
	for i, c := range a.ToolCalls {
		d.ToolCalls = append(d.ToolCalls, protocol.ChatToolCallDelta{Index: i, ID: c.ID, Type: "function", Function: c.Function})
	}
	b, _ := json.Marshal(protocol.ChatChunk{Choices: []protocol.ChatChunkChoice{{Delta: d}}})
	fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", b)
}

// host records the calls a turn makes.
type host struct{ calls []string }

func (h *host) Exec(_ context.Context, _, id, _ string, in json.RawMessage) (json.RawMessage, error) {
	h.calls = append(h.calls, "exec "+id+" "+string(in))
	return json.RawMessage(`{"status":"completed","value":42}`), nil
}

func (h *host) Wait(_ context.Context, _, id, _ string, in json.RawMessage) (json.RawMessage, error) {
	h.calls = append(h.calls, "wait "+id+" "+string(in))
	return json.RawMessage(`{"status":"completed","value":1}`), nil
}

func (h *host) Invoke(_ context.Context, p protocol.InvokeParams, _ string) (json.RawMessage, error) {
	h.calls = append(h.calls, "invoke "+p.ToolCallID+" "+p.CatalogID+" parent="+p.ParentToolCallID)
	if p.Tool == "fail" {
		return nil, errors.New("tool failed")
	}
	return json.RawMessage(`{"ok":true}`), nil
}

func call(id, name, args string) protocol.ChatToolCall {
	return protocol.ChatToolCall{ID: id, Type: "function", Function: protocol.ChatFunctionCall{Name: name, Arguments: args}}
}

func answer(text string, calls ...protocol.ChatToolCall) protocol.ChatMessage {
	return protocol.ChatMessage{Role: "assistant", Content: protocol.TextContent(text), ToolCalls: calls}
}

var active = Surface{Run: "r", Active: true, Tools: []protocol.ModelTool{{Name: "exec"}, {Name: "wait"}}, Direct: map[string]Direct{}}

func turn(t *testing.T, s Surface, p protocol.AgentTurnParams, answers ...protocol.ChatMessage) (protocol.AgentTurnResult, *scripted, *host) {
	prov := &scripted{answers: answers}
	srv := httptest.NewServer(prov)
	t.Cleanup(srv.Close)
	h := &host{}
	p.Run, p.Provider, p.User = s.Run, protocol.ProviderRef{BaseURL: srv.URL + "/v1", Model: "m"}, "u"
	if p.Message == "" {
		p.Message = "hi"
	}
	return Turn(context.Background(), srv.Client(), s, h, p, true), prov, h
}

// A turn runs the model's exec and wait calls in order with their call ids,
// feeds the results back as tool messages, and ends at the final text.
func TestTurnRunsToolCallsAndFeedsResultsBack(t *testing.T) {
	g := gomega.NewWithT(t)
	res, prov, h := turn(t, active, protocol.AgentTurnParams{},
		answer("", call("c1", "exec", `{"code":"return 42"}`), call("c2", "wait", `{"runId":"cm_1"}`)),
		answer("the answer is 42"))
	g.Expect(res.Status).To(gomega.Equal(protocol.TurnCompleted), "%+v", res)
	g.Expect(res.Text).To(gomega.Equal("the answer is 42"))
	g.Expect(h.calls).To(gomega.Equal([]string{`exec c1 {"code":"return 42"}`, `wait c2 {"runId":"cm_1"}`}), "exec then wait, with the model's ids and inputs")
	g.Expect(prov.reqs).To(gomega.HaveLen(2))
	g.Expect(prov.reqs[0].Tools).To(gomega.HaveLen(2), "exec and wait are offered")
	g.Expect(prov.reqs[0].Stream).To(gomega.BeTrue(), "the reference streams")
	msgs := prov.reqs[1].Messages
	g.Expect(msgs).To(gomega.HaveLen(4), "user, assistant with two calls, two tool results: %+v", msgs)
	g.Expect(msgs[2].ToolCallID).To(gomega.Equal("c1"))
	g.Expect(msgs[3].ToolCallID).To(gomega.Equal("c2"))
	g.Expect(res.Messages).To(gomega.HaveLen(5), "the transcript adds the final assistant message")
}

// A direct tool runs as one tool.invoke with no parent; a failing one and a
// name outside the surface come back as {"error"} results.
func TestTurnDirectToolsAndUnknownNames(t *testing.T) {
	g := gomega.NewWithT(t)
	s := Surface{Run: "r", Tools: []protocol.ModelTool{{Name: "add"}, {Name: "fail"}}, Direct: map[string]Direct{
		"add":  {CatalogID: "openclaw:core:add", Spec: protocol.ToolSpec{Name: "add", Source: "openclaw", Owner: "core"}},
		"fail": {CatalogID: "openclaw:core:fail", Spec: protocol.ToolSpec{Name: "fail", Source: "openclaw", Owner: "core"}}}}
	res, _, h := turn(t, s, protocol.AgentTurnParams{},
		answer("", call("c1", "add", `{}`), call("c2", "fail", `{}`), call("c3", "exec", `{}`)), answer("done"))
	g.Expect(res.Status).To(gomega.Equal(protocol.TurnCompleted), "%+v", res)
	g.Expect(h.calls).To(gomega.Equal([]string{"invoke c1 openclaw:core:add parent=", "invoke c2 openclaw:core:fail parent="}), "exec is not in this run's surface")
	g.Expect(res.Messages[2].Text()).To(gomega.MatchJSON(`{"ok":true}`))
	g.Expect(res.Messages[3].Text()).To(gomega.MatchJSON(`{"error":"tool failed"}`))
	g.Expect(res.Messages[4].Text()).To(gomega.ContainSubstring("not available"))
}

// The final check fails the turn before anything is sent (CM-ACT-09); the
// step bound and a provider error fail it too, as results.
func TestTurnFailures(t *testing.T) {
	g := gomega.NewWithT(t)
	res, prov, _ := turn(t, active, protocol.AgentTurnParams{Faults: &protocol.AgentTurnFaults{AddProviderTool: "echo"}}, answer("x"))
	g.Expect(res.Code).To(gomega.Equal(protocol.TurnToolSurfaceMismatch), "%+v", res)
	g.Expect(prov.reqs).To(gomega.BeEmpty(), "nothing is sent")

	res, _, _ = turn(t, active, protocol.AgentTurnParams{MaxSteps: 1}, answer("", call("c1", "exec", `{}`)))
	g.Expect(res.Code).To(gomega.Equal(protocol.TurnMaxSteps), "%+v", res)

	res, _, _ = turn(t, active, protocol.AgentTurnParams{})
	g.Expect(res.Code).To(gomega.Equal(protocol.TurnProviderError), "%+v", res)
	g.Expect(res.Error).To(gomega.ContainSubstring("no answer left"))
	g.Expect(res.Messages).To(gomega.HaveLen(1), "the transcript so far: the user message")
}

// History goes before the user message unchanged (CM-E2E-09).
func TestTurnSendsHistoryFirst(t *testing.T) {
	g := gomega.NewWithT(t)
	hist := []protocol.ChatMessage{{Role: "user", Content: protocol.TextContent("before")}, answer("", call("c0", "exec", `{"code":"1"}`)),
		{Role: "tool", ToolCallID: "c0", Content: protocol.TextContent(`{"status":"completed","value":1}`)}, answer("one")}
	_, prov, _ := turn(t, active, protocol.AgentTurnParams{History: hist}, answer("ok"))
	g.Expect(prov.reqs).To(gomega.HaveLen(1))
	got, _ := json.Marshal(prov.reqs[0].Messages[:4])
	want, _ := json.Marshal(hist)
	g.Expect(got).To(gomega.MatchJSON(want), "the history is sent unchanged")
	g.Expect(prov.reqs[0].Messages[4].Text()).To(gomega.Equal("hi"))
}
