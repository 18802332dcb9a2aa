package codemode

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"regexp"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var _ = Describe("codemode", "telemetry", func() {
	It("CM-TEL-01", "results carry visible tools, catalog size and sources, counts, called tool ids and limit failures", func(ctx SpecContext) {
		ts := append(tools.Standard(), tools.Named(protocol.SourcePlugin, "browser", "browser_request", "Open a page."))
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxOutputBytes": 1024, "timeoutMs": 1000}), Tools: ts})
		// A target may suspend at each call (§10): every wait of the run
		// counts in waitCount, those of this cell too.
		res, steps := r.RunToCompletion(ctx, Guest(`await search("add"); await describe("add");
			await call("echo", {}); await call("add", {a: 1, b: 2}); return 1;`))
		Expect(res).To(BeCompleted(), "the cell that searches, describes and calls two tools must complete")
		// The called ids are the catalog ids the target's tool.invoke named:
		// 001's catalog handles show the guest no id (spec/protocol.md §12.13).
		var ids []string
		for _, n := range []string{"echo", "add"} {
			calls := r.Tools.CallsOf(n)
			Expect(calls).To(HaveLen(1), "the cell calls %s once", n)
			ids = append(ids, calls[0].CatalogID)
		}
		t := res.Telemetry
		Expect(t).NotTo(BeNil(), "no telemetry in %s", res.Raw)
		Expect(t.VisibleTools).To(ConsistOf("exec", "wait"), "telemetry.visibleTools must name only exec and wait")
		Expect(t.CatalogSize).To(Equal(len(ts)), "telemetry.catalogSize must count the %d hidden catalog tools", len(ts))
		Expect(t.ExecCount).To(Equal(1), "telemetry.execCount must count the run's one exec so far")
		Expect(t.SearchCount).To(Equal(1), "telemetry.searchCount must count the cell's one tools.search")
		Expect(t.DescribeCount).To(Equal(1), "telemetry.describeCount must count the cell's one tools.describe")
		Expect(t.CallCount).To(Equal(2), "telemetry.callCount must count the cell's two tools.call")
		Expect(t.CalledToolIDs).To(ConsistOf(ids), "telemetry.calledToolIds must list the catalog ids the cell called")
		Expect(t.LimitFailures).To(BeEmpty(), "a completed cell has no telemetry.limitFailures")
		// The breakdown by source is CM-TEL-01's: it must cover the catalog.
		// Which source each tool is given is CM-CAT-01's (a plugin tool
		// classed openclaw is its fault), so the exact split is a
		// precondition, checked last (verdict audit A11).
		total := 0
		for _, n := range t.CatalogSources {
			total += n
		}
		Expect(total).To(Equal(len(ts)), "telemetry.catalogSources must break the %d catalog tools down by source: %v", len(ts), t.CatalogSources)

		waits := len(steps) - 1
		res, steps = r.RunToCompletion(ctx, `text("x".repeat(4000)); return 1;`)
		waits += len(steps) - 1
		Expect(res).To(BeFailedWith(result.CodeOutputLimitExceeded), "4000 bytes of text under maxOutputBytes 1024 must fail with output_limit_exceeded")
		Expect(res.Telemetry).NotTo(BeNil(), "no telemetry on a failed result: %s", res.Raw)
		Expect(res.Telemetry.LimitFailures).To(ContainElement(result.CodeOutputLimitExceeded), "telemetry.limitFailures must name the output_limit_exceeded failure")
		Expect(res.Telemetry.ExecCount).To(Equal(2), "execCount counts the run's exec calls")

		w := r.Exec(ctx, Guest(`await call("slow", {ms: 1500}); return 1;`))
		Expect(w).To(BeWaiting(), "a 1500 ms call outlives a 1000 ms exec")
		final, steps := r.Follow(ctx, w)
		waits += len(steps) - 1
		Expect(final).To(BeCompleted(), "the waiting cell must complete after wait")
		Expect(final.Telemetry).NotTo(BeNil(), "no telemetry on the result of wait: %s", final.Raw)
		Expect(final.Telemetry.WaitCount).To(Equal(waits), "waitCount counts the run's wait calls (%d in all)", waits)
		Precondition("CM-CAT-01").Expect(t.CatalogSources).To(Equal(map[string]int{"openclaw": 5, "plugin": 1}), "telemetry.catalogSources classes the catalog's tools by source as CM-CAT-01 gives them")
	})

	It("CM-TEL-02", "telemetry never carries secrets, environment values or raw tool inputs: the raw result bytes are searched", func(ctx SpecContext) {
		const secret = "sk-live-TELEMETRY-SECRET-4711"
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		res, quiet := r.RunToCompletion(ctx, Guest(`const apiKey = "`+secret+`"; await call("echo", {apiKey, note: "input-`+secret+`"}); return "done";`))
		Expect(res).To(BeCompleted(), "the cell passing the secret to echo must complete")
		res, failed := r.RunToCompletion(ctx, Guest(`await call("fail", {message: "`+secret+`"}); return 1;`))
		Expect(res).To(BeFailed(), "the cell whose tool fails with the secret as its message must fail")
		// What the target process could leak from its environment: an exec:
		// target inherits the harness's, so its values are known here, and
		// the harness adds a random canary no target has a reason to report.
		var envValues []string
		for _, k := range []string{"PATH", "HOME", "PWD"} {
			if v := os.Getenv(k); len(v) >= 6 {
				envValues = append(envValues, v)
			}
		}
		if c := T().Canary(); c != "" {
			envValues = append(envValues, c)
		}
		envPattern := regexp.MustCompile(`(?i)\b(PATH|HOME|USER|PWD|SHELL)=|"(PATH|HOME|USER|PWD|SHELL)"\s*:`)
		// check searches text for each leak in plain form and base64 encoded
		// (standard and URL alphabets, at any alignment).
		check := func(what, text string, s Result) {
			Expect(text).NotTo(ContainSubstring("TELEMETRY-SECRET"), "%s carries the secret tool input: %s", what, s)
			Expect(text).NotTo(ContainSubstring("apiKey"), "%s carries a raw tool input: %s", what, s)
			Expect(text).NotTo(MatchRegexp(envPattern.String()), "%s carries environment values: %s", what, s)
			for _, v := range envValues {
				Expect(text).NotTo(ContainSubstring(v), "%s carries an environment value of the target process: %s", what, s)
			}
			for _, leak := range append([]string{"TELEMETRY-SECRET", "apiKey"}, envValues...) {
				for _, b := range base64Forms(leak) {
					Expect(text).NotTo(ContainSubstring(b), "%s carries %q base64 encoded (as %q): %s", what, leak, b, s)
				}
			}
		}
		// checkDecoded checks every key and string value of a JSON document
		// as decoded: a leak spelled with JSON escapes (\u002d) hides from
		// the raw bytes.
		checkDecoded := func(what string, raw []byte, s Result) {
			var doc any
			Expect(json.Unmarshal(raw, &doc)).To(Succeed(), "%s is JSON: %s", what, raw)
			for _, str := range jsonStrings(doc, nil) {
				check(what+", decoded,", str, s)
			}
		}
		for _, s := range append(quiet, failed...) {
			// The raw bytes of the telemetry member, exactly as the target
			// sent them: decoding into the Go struct would drop unknown members.
			var members map[string]json.RawMessage
			Expect(json.Unmarshal(s.Raw, &members)).To(Succeed(), "a result object: %s", s.Raw)
			Expect(members).To(HaveKey("telemetry"), "no telemetry in %s", s.Raw)
			check("the raw telemetry", string(members["telemetry"]), s)
			checkDecoded("the telemetry", members["telemetry"], s)
		}
		// The echo cell returns "done" and writes nothing: no byte of its
		// results may repeat the input (the failed cell's error text does, by design).
		for _, s := range quiet {
			check("the raw result of a cell that only passed the secret to a tool", string(s.Raw), s)
			checkDecoded("the result of a cell that only passed the secret to a tool", s.Raw, s)
		}
	})
})

// jsonStrings appends every object key and string value of the decoded JSON
// document v to out.
func jsonStrings(v any, out []string) []string {
	switch v := v.(type) {
	case string:
		out = append(out, v)
	case []any:
		for _, e := range v {
			out = jsonStrings(e, out)
		}
	case map[string]any:
		for k, e := range Sorted(v) {
			out = jsonStrings(e, append(out, k))
		}
	}
	return out
}

// base64Forms returns the base64 runs (standard and URL alphabets) that any
// base64 encoding of a text containing s contains: s is encoded at each of
// the three byte alignments, and the characters that also depend on the
// bytes around s are cut off.
func base64Forms(s string) []string {
	var out []string
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for k := 0; k < 3; k++ {
			e := enc.EncodeToString(append(make([]byte, k), s...))
			from, to := (8*k+5)/6, 8*(k+len(s))/6 // characters made of bits of s only
			if to-from >= 6 {
				out = append(out, e[from:to])
			}
		}
	}
	return out
}
