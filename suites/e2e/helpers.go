// Package e2e holds the end-to-end plan (000 [Piano di test E2E],
// CM-E2E-01..09, CM-ACT-09): real agent turns (agent.turn, feature
// agent-turn) against the harness's fake model provider (fakes/provider).
// Each spec scripts the model, lets the target run the turn, and judges
// what the provider received (the tools, the tool results) and the turn's
// transcript. The specs run in the plan's order; each is independent, so
// one failure does not hide the others' verdicts.
package e2e

import (
	"context"
	"encoding/json"

	"github.com/codemode-conformance/codemode/fakes/provider"
	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/suites/framework/dialect"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// planTools are the plan's test tools: core (echo, add, slow), a plugin
// tool and a client tool.
func planTools() []tools.Tool {
	weather := tools.Plugin("forecast", "weather", "Current weather for a city.",
		json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		func(_ context.Context, in json.RawMessage) (any, error) {
			var v struct{ City string }
			_ = json.Unmarshal(in, &v)
			return map[string]any{"city": v.City, "sky": "clear"}, nil
		})
	color := tools.Named(protocol.SourceClient, "webapp", "pick_color", "Ask the user to pick a color in the client app.")
	return []tools.Tool{tools.Echo(), tools.Add(), tools.Slow(), weather, color}
}

// evidence is the text a failure message carries: the provider's requests
// and the turn's transcript.
func evidence(prov *provider.Server, res protocol.AgentTurnResult) string {
	return "\nprovider requests:\n" + prov.Summary() + "\n" + TurnText(res)
}

// toolResults are the turn's tool messages in order, each decoded as JSON.
// A failed one whose error is a guest dialect helper's missing surface stops
// the spec as blocked by the requirement owning that surface.
func toolResults(res protocol.AgentTurnResult) []map[string]any {
	ginkgo.GinkgoHelper()
	var out []map[string]any
	for _, m := range res.Messages {
		if m.Role != "tool" {
			continue
		}
		var v map[string]any
		Expect(json.Unmarshal([]byte(resultText(m.Text())), &v)).To(Succeed(), "tool message %s must carry a JSON object (bare, or inside one untrusted-content wrapper): %s", m.ToolCallID, m.Text())
		blockOnDialect(v)
		out = append(out, v)
	}
	return out
}

// resultText is a tool message's text, or, when the whole message is one
// untrusted-content wrapper (spec/protocol.md §4.3; OpenClaw 2026.9.6 wraps
// its tool results with wrapExternalContent), the content inside it: which
// results must be wrapped is CM-NEST-20's subject, not the plan specs',
// which judge the result the wrapper carries.
func resultText(text string) string {
	if u, ok := protocol.FindUntrusted(text); ok {
		return u.Content
	}
	return text
}

// blockOnDialect marks the spec blocked when v, a tool result of a turn,
// is a cell that failed on the guest dialect: it relied on a surface
// another requirement owns (suites/framework/dialect).
func blockOnDialect(v map[string]any) {
	ginkgo.GinkgoHelper()
	if e, _ := v["error"].(string); v["status"] == "failed" && e != "" {
		if req, what, ok := dialect.BlockedBy(e); ok {
			Blocked(req, "the guest dialect of profile %s needs what the target lacks: %s", Profile(), what)
		}
	}
}

// blockOnDialectCells applies blockOnDialect to every tool message of res
// that reads as a JSON object, and asserts nothing else: for specs whose
// subject is the transcript, not the tool messages' shape.
func blockOnDialectCells(res protocol.AgentTurnResult) {
	ginkgo.GinkgoHelper()
	for _, m := range res.Messages {
		var v map[string]any
		if m.Role == "tool" && json.Unmarshal([]byte(resultText(m.Text())), &v) == nil {
			blockOnDialect(v)
		}
	}
}

// lastResult is the turn's last tool result: the cell's end when the
// model followed waiting with wait (Run.Settle).
func lastResult(res protocol.AgentTurnResult, prov *provider.Server) map[string]any {
	ginkgo.GinkgoHelper()
	results := toolResults(res)
	Expect(results).NotTo(BeEmpty(), "the turn must carry an exec result%s", evidence(prov, res))
	return results[len(results)-1]
}

// controlCallIDs are the ids of the turn's exec and wait calls: a nested
// call names one of them as its parent (the exec, or the wait that resumed it).
func controlCallIDs(res protocol.AgentTurnResult) []string {
	var ids []string
	for _, c := range toolCalls(res) {
		if c.Function.Name == "exec" || c.Function.Name == "wait" {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// toolCalls are the turn's assistant tool calls in order.
func toolCalls(res protocol.AgentTurnResult) []protocol.ChatToolCall {
	var out []protocol.ChatToolCall
	for _, m := range res.Messages {
		out = append(out, m.ToolCalls...)
	}
	return out
}

// requireTurns skips a spec that needs agent.turn besides its own feature.
func requireTurns(id string) {
	ginkgo.GinkgoHelper()
	RequireFeature("agent-turn", "the "+id+" check runs an agent turn (agent.turn)")
}
