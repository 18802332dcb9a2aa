package codemode

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

// Generation-2 rules where page 001 differs from page 000 (profile v2):
// exact wait failures, plain JavaScript cells, direct-only tools.

// The wait failure messages 001 fixes [运行和快照生命周期] (CM-EXEC-10).
const (
	msgUnavailable  = "code mode run is unavailable or expired."
	msgOtherSession = "code mode run belongs to a different session."
)

var _ = Describe("codemode", "generation 2", func() {
	It("CM-EXEC-10", "unknown, expired, already resuming, wrong-session and wrong-run waits fail with invalid_input and 001's messages", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(map[string]any{"snapshotTtlSeconds": 2}), Tools: tools.Standard()})
		res := r.Wait(ctx, "no-such-run-id")
		Expect(res).To(BeFailedWith(result.CodeInvalidInput), "wait for an unknown runId: %s", res.Raw)
		Expect(res.Error).To(Equal(msgUnavailable), "wait for an unknown runId must say the run is unavailable or expired: %s", res.Raw)

		w := r.Exec(ctx, Guest(slowCall))
		Expect(w).To(BeWaiting(), "the slow nested call must suspend the cell")
		other := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: tools.Standard()})
		res = other.Wait(ctx, w.RunID)
		Expect(res).To(BeFailedWith(result.CodeInvalidInput), "wait from another session: %s", res.Raw)
		Expect(res.Error).To(Equal(msgOtherSession), "wait from another session must say the run belongs to a different session: %s", res.Raw)
		sibling := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: tools.Standard(), Context: r.Params.RunContext})
		res = sibling.Wait(ctx, w.RunID)
		Expect(res).To(BeFailedWith(result.CodeInvalidInput), "wait from another run of the same session (001 fixes no message for it): %s", res.Raw)

		time.Sleep(3500 * time.Millisecond) // the TTL (2 s, above timeoutMs: protocol.md §10) is the subject under test; a wait before it passes would resume the cell
		res = r.Wait(ctx, w.RunID)
		Expect(res).To(BeFailedWith(result.CodeInvalidInput), "wait on an expired snapshot is no distinct terminal state under 001: %s", res.Raw)
		Expect(res.Error).To(Equal(msgUnavailable), "wait on an expired snapshot must say the run is unavailable or expired: %s", res.Raw)

		// Already resuming: two concurrent waits, the loser fails.
		a := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: tools.Standard()})
		w = a.Exec(ctx, Guest(`const x = (await call("slow", {ms: 1300})); return x.slept;`))
		Expect(w).To(BeWaiting(), "a cell awaiting a 1300 ms nested call must suspend")
		results := Concurrently(2, func(int) Result { return a.Wait(ctx, w.RunID) })
		losers := 0
		for _, res := range results {
			if res.Status == result.StatusFailed {
				Expect(res).To(BeFailedWith(result.CodeInvalidInput), "the wait that lost the race: %s", res.Raw)
				Expect(res.Error).To(Equal(msgUnavailable), "the wait that lost the race must say the run is unavailable or expired: %s", res.Raw)
				losers++
			} else {
				final, _ := a.Follow(ctx, res)
				Expect(final).To(CompleteWith(1300), "the wait that won must carry the cell to completion %s", EnvelopeNote)
			}
		}
		Expect(losers).To(Equal(1), "exactly one of two concurrent waits must fail: %s / %s", results[0].Raw, results[1].Raw)
	})

	It("CM-TS-04", "cells are plain JavaScript: language typescript is refused with invalid_input and annotations are a syntax error", func(ctx SpecContext) {
		for _, cm := range []any{true, Enabled(map[string]any{"languages": []string{"javascript", "typescript"}})} {
			r := NewRun(ctx, RunOptions{CodeMode: cm, Tools: tools.Standard()})
			res := r.ExecInput(ctx, map[string]any{"code": Guest(`text("ran"); await call("echo", {}); return 1;`), "language": "typescript"})
			Expect(res).To(BeFailedWith(result.CodeInvalidInput), "exec with language typescript (codeMode %v) must be refused: %s", cm, res.Raw)
			Expect(res.Output).To(BeEmpty(), "a refused cell must not run: %s", res.Raw)
			Expect(r.Tools.Calls()).To(BeEmpty(), "a refused cell must make no nested call")
			res = r.Exec(ctx, `const n: number = 41; return n + 1;`)
			Expect(res).To(BeFailed(), "a type annotation in a JavaScript cell must not be stripped: %s", res.Raw)
			Expect(res.Error).To(ContainSubstring("SyntaxError"), "the annotation must be the engine's JavaScript syntax error: %s", res.Raw)
			Expect(r.Exec(ctx, `const n = 41; return n + 1;`)).To(CompleteWith(42), "plain JavaScript runs")
		}
	})

	It("CM-ACT-08", "direct-only tools stay model-visible beside exec and wait and are absent from the hidden catalog", func(ctx SpecContext) {
		direct := tools.Named("openclaw", "core", "send_message", "Send a message to the user directly")
		direct.Spec.DirectOnly = true
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: append(tools.Standard(), direct)})
		Expect(r.Prepared.CodeModeActive).To(BeTrue(), "code mode must activate")
		var visible []string
		for _, t := range r.Prepared.Tools {
			visible = append(visible, t.Name)
		}
		slices.Sort(visible)
		Expect(visible).To(Equal([]string{"exec", "send_message", "wait"}), "the model must see exec, wait and the direct-only tool, nothing else")
		names := catalogNames(ctx, r)
		Expect(names).NotTo(ContainElement("send_message"), "the direct-only tool must be absent from ALL_TOOLS")
		Expect(names).To(ContainElement("echo"), "ordinary tools stay in the catalog")
		res := r.Exec(ctx, Guest(`const hits = await search("send message directly"); return hits.map((h) => h.name);`))
		Expect(res).To(BeCompleted(), "tools.search must complete: %s", res.Raw)
		var hits []string
		Expect(json.Unmarshal(res.Value, &hits)).To(Succeed(), "search hits must be named: %s", res.Value)
		Expect(hits).NotTo(ContainElement("send_message"), "tools.search must not find the direct-only tool")
		res = r.Exec(ctx, `try { await tools.call("openclaw:core:send_message", {}); return "called"; } catch (e) { return "refused"; }`)
		Expect(res).To(CompleteWith("refused"), "a guessed catalog id of the direct-only tool must not be callable: %s", res.Raw)
		Expect(r.Tools.CallsOf("send_message")).To(BeEmpty(), "the direct-only tool must never be invoked from a cell")
	})
})
