package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/fakes/provider"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// ProviderRequestsEntry names the report entry holding the fake provider's
// recorded requests (provider.Server.Summary) of a failed spec.
const ProviderRequestsEntry = "provider requests"

// ProviderDir is the folder of the results dir that receives each spec's
// provider requests as JSON (NNNN-<spec text>.json, provider.FileName).
const ProviderDir = "provider-requests"

// StartProvider starts a fake model provider with script for the current
// spec (feature agent-turn, protocol.md §3 "agent.turn"). When the spec
// ends it is stopped, its requests are saved to
// <ResultsDir>/provider-requests/ (when the run has a results dir), and a
// failed spec's report carries them.
func StartProvider(script ...provider.Step) *provider.Server {
	ginkgo.GinkgoHelper()
	s, err := provider.Start(script...)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "starting the fake model provider")
	name := providerFile(ginkgo.CurrentSpecReport().LeafNodeText)
	ginkgo.DeferCleanup(func() {
		_ = s.Close()
		if dir := ResultsDir(); dir != "" && len(s.Requests()) > 0 {
			if _, err := s.Save(filepath.Join(dir, ProviderDir), name); err != nil {
				ginkgo.GinkgoWriter.Printf("saving the provider requests: %v\n", err)
			}
		}
		if ginkgo.CurrentSpecReport().Failed() {
			ginkgo.AddReportEntry(ProviderRequestsEntry, s.Summary(), ginkgo.ReportEntryVisibilityFailureOrVerbose)
		}
	})
	return s
}

var (
	providerMu    sync.Mutex
	providerCount int
)

// providerFile names the saved requests of the next provider of the run:
// provider.FileName with the provider's place among the run's providers
// (from 1; the CLI runs specs in a fixed order, so the same selection
// gives the same names), so no two providers of a run share a file.
func providerFile(spec string) string {
	providerMu.Lock()
	defer providerMu.Unlock()
	providerCount++
	return provider.FileName(providerCount, spec)
}

// TurnOptions are the optional members of agent.turn.
type TurnOptions struct {
	History  []protocol.ChatMessage
	MaxSteps int
	Faults   *protocol.AgentTurnFaults
	// User is the turn's end-user id; empty means a fresh one.
	User string
}

// Turn runs one agent turn of r against prov (agent.turn) and returns its
// result. A JSON-RPC error fails the spec, with the provider's requests.
func (r *Run) Turn(ctx context.Context, prov *provider.Server, message string, o TurnOptions) protocol.AgentTurnResult {
	ginkgo.GinkgoHelper()
	user := o.User
	if user == "" {
		user = fmt.Sprintf("user-%s-%d", r.ID, r.calls.Add(1))
	}
	p := protocol.AgentTurnParams{Run: r.ID, Provider: protocol.ProviderRef{BaseURL: prov.URL, Model: provider.Model}, User: user,
		Message: message, History: o.History, MaxSteps: o.MaxSteps, Faults: o.Faults}
	steps := o.MaxSteps
	if steps == 0 {
		steps = 16
	}
	d := min(Timeouts.Call+time.Duration(steps)*(r.timeout+Timeouts.ToolCallSlack), Timeouts.Spec)
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	tg := T()
	tg.router.beginTurn(r.ID)
	defer tg.router.finishTurn(r.ID)
	var res protocol.AgentTurnResult
	err := tg.Call(cctx, protocol.MethodAgentTurn, p, &res)
	r.log(protocol.MethodAgentTurn, p, res, err)
	NotAnswered("agent-turn", protocol.MethodAgentTurn, err)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "agent.turn failed at the protocol level\nprovider requests:\n%s", prov.Summary())
	gomega.Expect(res.Status).To(gomega.BeElementOf(protocol.TurnCompleted, protocol.TurnFailed), "agent.turn returned an unknown status\n%s", TurnText(res))
	return res
}

// TurnText is a turn's transcript for failure messages: one line per
// message, tool calls with id, name and input, tool results with their id.
func TurnText(res protocol.AgentTurnResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "turn %s: status %s", res.Run, res.Status)
	if res.Code != "" || res.Error != "" {
		fmt.Fprintf(&b, " (%s: %s)", res.Code, res.Error)
	}
	for i, m := range res.Messages {
		fmt.Fprintf(&b, "\n  %d %s", i, m.Role)
		if m.ToolCallID != "" {
			fmt.Fprintf(&b, " [%s]", m.ToolCallID)
		}
		if t := m.Text(); t != "" {
			fmt.Fprintf(&b, ": %.400s", t)
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "\n    call %s %s %.400s", c.ID, c.Function.Name, c.Function.Arguments)
		}
	}
	return b.String()
}

// Settle is the model step that follows r's waiting cell to its end in an
// agent turn (provider.Settle), calling each wait once one of the nested
// calls the waiting result names as pending has returned (awaitPending),
// or once r's timeoutMs has passed without that. A target may answer a
// wait at once while its nested call is still pending (spec/protocol.md
// §10): a model that called wait again at once would spend the turn's
// steps (maxSteps) on waits that cannot progress, which is the harness's
// doing, not the target's.
func (r *Run) Settle() provider.Step {
	return provider.SettleWhen(func(raw []byte) {
		var res result.Result
		if json.Unmarshal(raw, &res) == nil {
			r.awaitPending(res, r.timeout)
		}
	})
}
