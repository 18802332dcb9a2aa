package e2e

import (
	"encoding/json"
	"os"
	"regexp"

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

	It("CM-TEL-02", "telemetry never carries secrets, environment values or raw tool inputs: the raw result bytes are searched", func(ctx SpecContext) {
		const secret = "sk-live-TELEMETRY-SECRET-4711"
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		res, quiet := r.RunToCompletion(ctx, Guest(`const apiKey = "`+secret+`"; await tools.call(id("echo"), {apiKey, note: "input-`+secret+`"}); return "done";`))
		Expect(res).To(BeCompleted())
		res, failed := r.RunToCompletion(ctx, Guest(`await tools.call(id("fail"), {message: "`+secret+`"}); return 1;`))
		Expect(res).To(BeFailed())
		// What the target process could leak from its environment: an exec:
		// target inherits the harness's, so its values are known here.
		var envValues []string
		for _, k := range []string{"PATH", "HOME", "PWD"} {
			if v := os.Getenv(k); len(v) >= 6 {
				envValues = append(envValues, v)
			}
		}
		envPattern := regexp.MustCompile(`(?i)\b(PATH|HOME|USER|PWD|SHELL)=|"(PATH|HOME|USER|PWD|SHELL)"\s*:`)
		check := func(what string, raw []byte, s Result) {
			text := string(raw)
			Expect(text).NotTo(ContainSubstring("TELEMETRY-SECRET"), "%s carries the secret tool input: %s", what, s)
			Expect(text).NotTo(ContainSubstring("apiKey"), "%s carries a raw tool input: %s", what, s)
			Expect(text).NotTo(MatchRegexp(envPattern.String()), "%s carries environment values: %s", what, s)
			for _, v := range envValues {
				Expect(text).NotTo(ContainSubstring(v), "%s carries an environment value of the target process: %s", what, s)
			}
		}
		for _, s := range append(quiet, failed...) {
			// The raw bytes of the telemetry member, exactly as the target
			// sent them: decoding into the Go struct would drop unknown members.
			var members map[string]json.RawMessage
			Expect(json.Unmarshal(s.Raw, &members)).To(Succeed(), "a result object: %s", s.Raw)
			Expect(members).To(HaveKey("telemetry"), "no telemetry in %s", s.Raw)
			check("the raw telemetry", members["telemetry"], s)
		}
		// The echo cell returns "done" and writes nothing: no byte of its
		// results may repeat the input (the failed cell's error text does, by design).
		for _, s := range quiet {
			check("the raw result of a cell that only passed the secret to a tool", s.Raw, s)
		}
	})
})
