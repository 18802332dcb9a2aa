package codemode

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/google/go-cmp/cmp"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Partial updates of nested calls (feature streaming, CM-NEST-11,
// spec/protocol.md §4 "Partial updates"): a harness tool sends tool.update
// while its tool.invoke is outstanding, and the target forwards each as
// tool.progress to the model's call, as it arrives. The tools hold their
// result until the harness has seen the forward, so order is observed from
// the protocol, never from sleeps.

// forwardWait bounds how long a streaming tool waits for its update to come
// back as tool.progress before it reports it missing.
const forwardWait = 3 * time.Second

// progressRow is a tool.progress with its partial decoded, for go-cmp.
type progressRow struct {
	ToolCallID, NestedToolCallID string
	Partial                      any
}

func progressRows(ps []protocol.ProgressParams) []progressRow {
	out := []progressRow{}
	for _, p := range ps {
		var v any
		if json.Unmarshal(p.Partial, &v) != nil {
			v = "undecodable: " + string(p.Partial)
		}
		out = append(out, progressRow{ToolCallID: p.ToolCallID, NestedToolCallID: p.NestedToolCallID, Partial: v})
	}
	return out
}

var _ = Describe("codemode", "partial updates", func() {
	It("CM-NEST-11", "a nested tool's partial updates are forwarded as tool.progress as they arrive, in order, before its result", func(ctx SpecContext) {
		const guest = `return (await call("streamer", {})).forwarded;`
		steps := []any{map[string]any{"step": 1.0, "of": 2.0}, map[string]any{"step": 2.0, "of": 2.0}}
		var r *Run
		streamer := tools.Core("streamer", "Report progress twice, then return {forwarded: [bool, bool]}.", nil,
			func(tctx context.Context, _ json.RawMessage) (any, error) {
				fwd := []bool{}
				for _, s := range steps {
					if err := tools.Update(tctx, s); err != nil {
						return nil, protocol.ToolError("streamer: "+err.Error(), nil)
					}
					wctx, cancel := context.WithTimeout(tctx, forwardWait)
					fwd = append(fwd, r.AwaitProgress(wctx, s)) // hold the result until the update came back
					cancel()
				}
				return map[string]any{"forwarded": fwd}, nil
			})
		r = NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 20000}), Tools: []tools.Tool{streamer}})
		res, _ := r.RunToCompletion(ctx, Guest(guest)) // a target may suspend the cell while the tool holds its result
		Expect(res).To(CompleteWith([]any{true, true}),
			"each partial update must reach the harness as tool.progress while the nested call is outstanding (the tool waits %s for each before it answers) %s; guest code:\n%s", forwardWait, EnvelopeNote, guest)
		calls := r.Tools.CallsOf("streamer")
		Expect(calls).To(HaveLen(1), "the cell makes one nested call: %v", calls)
		want := []progressRow{}
		for _, s := range steps {
			want = append(want, progressRow{ToolCallID: calls[0].ParentToolCallID, NestedToolCallID: calls[0].ToolCallID, Partial: s})
		}
		Expect(cmp.Diff(want, progressRows(r.Progress()))).To(BeEmpty(),
			"tool.progress (-want +got): each update once, in the order the tool sent it, naming the exec call as toolCallId and the nested call as nestedToolCallId; guest code:\n%s", guest)
	})

	It("CM-NEST-11", "the partial update of a nested call that outlives its exec is forwarded while the cell waits", func(ctx SpecContext) {
		const guest = `return (await call("slowstream", {})).done;`
		partial := map[string]any{"phase": "started"}
		gate := make(chan struct{})
		var once sync.Once
		release := func() { once.Do(func() { close(gate) }) }
		ginkgo.DeferCleanup(release)
		slow := tools.Core("slowstream", "Report that it started, then return {done: true} once released.", nil,
			func(tctx context.Context, _ json.RawMessage) (any, error) {
				if err := tools.Update(tctx, partial); err != nil {
					return nil, protocol.ToolError("slowstream: "+err.Error(), nil)
				}
				select {
				case <-gate:
					return map[string]any{"done": true}, nil
				case <-tctx.Done():
					return nil, protocol.ToolError("slowstream: canceled", nil)
				}
			})
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: []tools.Tool{slow}})
		w := r.Exec(ctx, Guest(guest))
		Expect(w).To(BeWaiting(), "a cell awaiting a held nested call must suspend under timeoutMs 1000; guest code:\n%s", guest)
		Eventually(func() []progressRow { return progressRows(r.Progress()) }).WithTimeout(forwardWait).Should(
			ContainElement(HaveField("Partial", map[string]any{"phase": "started"})),
			"the update the held nested call sent must be forwarded as tool.progress while the call is still outstanding, not held until it ends; guest code:\n%s", guest)
		release()
		final, _ := r.Follow(ctx, w)
		Expect(final).To(CompleteWith(true), "once released, wait must deliver the call's result %s; guest code:\n%s", EnvelopeNote, guest)
		calls := r.Tools.CallsOf("slowstream")
		Expect(calls).To(HaveLen(1), "the cell makes one nested call: %v", calls)
		want := []progressRow{{ToolCallID: calls[0].ParentToolCallID, NestedToolCallID: calls[0].ToolCallID, Partial: partial}}
		Expect(cmp.Diff(want, progressRows(r.Progress()))).To(BeEmpty(), "tool.progress (-want +got): the one update, naming the exec call the nested call was made under and the nested call")
	})
})
