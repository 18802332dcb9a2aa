package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/onsi/gomega"
)

// hostileTurn runs a turn against a provider served by h.
func hostileTurn(t *testing.T, ctx context.Context, h http.HandlerFunc, p protocol.AgentTurnParams) protocol.AgentTurnResult {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	p.Run, p.Provider, p.User, p.Message = active.Run, protocol.ProviderRef{BaseURL: srv.URL, Model: "m"}, "u", "hi"
	return Turn(ctx, srv.Client(), active, &host{}, p, false)
}

func chunk(d protocol.ChatDelta) string {
	b, _ := json.Marshal(protocol.ChatChunk{Choices: []protocol.ChatChunkChoice{{Delta: d}}})
	return "data: " + string(b) + "\n\n"
}

// A stream longer than MaxResponse fails the turn saying so, not with a
// misleading parse error of the line the bound cut.
func TestHostileStreamTooLarge(t *testing.T) {
	g := gomega.NewWithT(t)
	res := hostileTurn(t, context.Background(), func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		line := chunk(protocol.ChatDelta{Content: strings.Repeat("x", 1000)})
		for n := 0; n <= MaxResponse; n += len(line) {
			if _, err := fmt.Fprint(w, line); err != nil {
				return
			}
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}, protocol.AgentTurnParams{})
	g.Expect(res.Code).To(gomega.Equal(protocol.TurnProviderError), "%+v", res.Error)
	g.Expect(res.Error).To(gomega.ContainSubstring("larger than"), "an oversized stream must be named as such")
}

// A model that answers every step with many calls carrying large arguments
// must not grow the transcript (and every request, which resends it)
// without bound: the turn fails once it passes MaxTranscript.
func TestHostileTranscriptBounded(t *testing.T) {
	g := gomega.NewWithT(t)
	args, _ := json.Marshal(map[string]string{"code": strings.Repeat("a", 60<<10)})
	var reqBytes, reqs int64
	res := hostileTurn(t, context.Background(), func(w http.ResponseWriter, r *http.Request) {
		n, _ := drain(r)
		reqBytes, reqs = reqBytes+n, reqs+1
		w.Header().Set("Content-Type", "text/event-stream")
		var d protocol.ChatDelta
		for i := range 120 {
			d.ToolCalls = append(d.ToolCalls, protocol.ChatToolCallDelta{Index: i, ID: fmt.Sprint("c", reqs, "_", i), Type: "function",
				Function: protocol.ChatFunctionCall{Name: "exec", Arguments: string(args)}})
		}
		fmt.Fprint(w, chunk(d), "data: [DONE]\n\n")
	}, protocol.AgentTurnParams{MaxSteps: MaxSteps})
	g.Expect(res.Status).To(gomega.Equal(protocol.TurnFailed))
	g.Expect(res.Code).NotTo(gomega.Equal(protocol.TurnMaxSteps), "the transcript bound must stop the turn before the step bound; requests %d, %d bytes sent", reqs, reqBytes)
	g.Expect(reqBytes).To(gomega.BeNumerically("<=", 2*MaxTranscript), "bytes sent to the provider over the turn")
}

// A provider that never ends its stream is cut when the turn's context is
// canceled (run.end, run.abort, the harness's cancel), promptly.
func TestHostileEndlessStreamCanceled(t *testing.T) {
	g := gomega.NewWithT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	res := hostileTurn(t, ctx, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for {
			if _, err := fmt.Fprint(w, ": keepalive\n\n"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}, protocol.AgentTurnParams{})
	g.Expect(res.Code).To(gomega.Equal(protocol.TurnProviderError), "%+v", res)
	g.Expect(time.Since(start)).To(gomega.BeNumerically("<", 5*time.Second), "a canceled turn must stop reading the stream")
}

func drain(r *http.Request) (int64, error) {
	var n int64
	buf := make([]byte, 64<<10)
	for {
		m, err := r.Body.Read(buf)
		n += int64(m)
		if err != nil {
			return n, nil
		}
	}
}

// Tool calls without an id, or sharing one, fail the turn before any runs:
// their tool messages could not be told apart.
func TestHostileToolCallIDs(t *testing.T) {
	for name, calls := range map[string][]protocol.ChatToolCall{
		"no id":     {call("", "exec", `{"code":"1"}`)},
		"shared id": {call("x", "exec", `{"code":"1"}`), call("x", "exec", `{"code":"2"}`)},
	} {
		g := gomega.NewWithT(t)
		res, _, h := turn(t, active, protocol.AgentTurnParams{}, answer("", calls...), answer("done"))
		g.Expect(res.Code).To(gomega.Equal(protocol.TurnProviderError), "%s: %+v", name, res)
		g.Expect(res.Error).To(gomega.ContainSubstring("id"), name)
		g.Expect(h.calls).To(gomega.BeEmpty(), "%s: no call runs", name)
	}
}

// A chat.completion body over MaxResponse fails as too large too.
func TestHostileCompletionTooLarge(t *testing.T) {
	g := gomega.NewWithT(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"choices":[{"message":{"role":"assistant","content":"`, strings.Repeat("x", MaxResponse), `"}}]}`)
	}))
	t.Cleanup(srv.Close)
	_, err := Complete(context.Background(), srv.Client(), srv.URL, protocol.ChatRequest{Model: "m"})
	g.Expect(err).To(gomega.MatchError(ErrResponseTooLarge), "a body over MaxResponse")
	g.Expect(err).To(gomega.MatchError(ErrProvider), "every provider failure wraps ErrProvider")
}
