package e2e

import (
	"encoding/json"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var _ = Describe("e2e", "telemetry", func() {
	It("CM-TEL-01", "results carry visible tools, catalog size and sources, counts, called tool ids and limit failures", func(ctx SpecContext) {
		ts := append(tools.Standard(), tools.Named(protocol.SourcePlugin, "browser", "browser_request", "Open a page."))
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxOutputBytes": 1024, "timeoutMs": 1000}), Tools: ts})
		res, _ := r.RunToCompletion(ctx, Guest(`await tools.search("add"); await tools.describe(id("add"));
			await tools.call(id("echo"), {}); await tools.call(id("add"), {a: 1, b: 2}); return [id("echo"), id("add")];`))
		Expect(res).To(BeCompleted())
		var ids []string
		Expect(json.Unmarshal(res.Value, &ids)).To(Succeed())
		t := res.Telemetry
		Expect(t).NotTo(BeNil(), "no telemetry in %s", res.Raw)
		Expect(t.VisibleTools).To(ConsistOf("exec", "wait"))
		Expect(t.CatalogSize).To(Equal(len(ts)))
		Expect(t.CatalogSources).To(Equal(map[string]int{"openclaw": 5, "plugin": 1}))
		Expect(t.ExecCount).To(Equal(1))
		Expect(t.SearchCount).To(Equal(1))
		Expect(t.DescribeCount).To(Equal(1))
		Expect(t.CallCount).To(Equal(2))
		Expect(t.CalledToolIDs).To(ConsistOf(ids))
		Expect(t.LimitFailures).To(BeEmpty())

		res, _ = r.RunToCompletion(ctx, `text("x".repeat(4000)); return 1;`)
		Expect(res).To(BeFailedWith(result.CodeOutputLimitExceeded))
		Expect(res.Telemetry).NotTo(BeNil(), "no telemetry on a failed result: %s", res.Raw)
		Expect(res.Telemetry.LimitFailures).To(ContainElement(result.CodeOutputLimitExceeded))
		Expect(res.Telemetry.ExecCount).To(Equal(2), "execCount counts the run's exec calls")

		w := r.Exec(ctx, Guest(`await tools.call(id("slow"), {ms: 1500}); return 1;`))
		Expect(w).To(BeWaiting(), "a 1500 ms call outlives a 1000 ms exec")
		final, steps := r.Follow(ctx, w)
		Expect(final).To(BeCompleted())
		Expect(final.Telemetry).NotTo(BeNil())
		Expect(final.Telemetry.WaitCount).To(Equal(len(steps)-1), "waitCount counts the run's wait calls")
	})

	It("CM-TEL-02", "telemetry never carries secrets, environment values or raw tool inputs", func(ctx SpecContext) {
		const secret = "sk-live-TELEMETRY-SECRET-4711"
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		var all []Result
		res, steps := r.RunToCompletion(ctx, Guest(`const apiKey = "`+secret+`"; await tools.call(id("echo"), {apiKey, note: "input-`+secret+`"}); return "done";`))
		Expect(res).To(BeCompleted())
		all = append(all, steps...)
		res, steps = r.RunToCompletion(ctx, Guest(`await tools.call(id("fail"), {message: "`+secret+`"}); return 1;`))
		Expect(res).To(BeFailed())
		all = append(all, steps...)
		for _, s := range all {
			Expect(s.Telemetry).NotTo(BeNil(), "no telemetry in %s", s.Raw)
			b, err := json.Marshal(s.Telemetry)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).NotTo(ContainSubstring("TELEMETRY-SECRET"), "telemetry leaked a secret or a tool input")
			Expect(string(b)).NotTo(ContainSubstring("apiKey"), "telemetry leaked a tool input")
			Expect(string(b)).NotTo(MatchRegexp(`(?i)"(PATH|HOME|USER)=`), "telemetry leaked environment values")
		}
	})
})
