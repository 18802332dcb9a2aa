// Package codemode holds the specs of the exec/wait contract itself: configuration, activation,
// exec/wait, the guest API and run lifecycle.
package codemode

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codemode-conformance/codemode/fakes/tools"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

// fillers declares n catalog tools whose names all match the query "widget".
func fillers(n int) []tools.Tool {
	out := make([]tools.Tool, n)
	for i := range out {
		out[i] = tools.Named("openclaw", "core", fmt.Sprintf("widget_%02d", i), "Widget tool number "+fmt.Sprint(i))
	}
	return out
}

func directNames(ts []tools.Tool) []string {
	out := []string{}
	for _, t := range ts {
		out = append(out, t.Spec.Name)
	}
	return out
}

var _ = Describe("codemode", "configuration", func() {
	std := tools.Standard()

	// The code-mode-off specs compare against the target's own surface
	// without code mode (SurfaceWithoutCodeMode), not against the ToolSpecs:
	// their requirements are that code mode stays off (CM-ACT-01 judges the
	// surface itself).
	It("CM-CFG-01", "enabled: true is the only activation gate; other fields alone do not enable code mode", func(ctx SpecContext) {
		off := ToolNames(SurfaceWithoutCodeMode(ctx, RunOptions{Tools: std}))
		Expect(off).NotTo(ConsistOf("exec", "wait"), "code mode must be disabled by default: a run without tools.codeMode shows exec and wait")
		r := NewRun(ctx, RunOptions{CodeMode: Gen1Fields(map[string]any{"timeoutMs": 5000, "maxOutputBytes": 2048}, map[string]any{"languages": []string{"javascript"}}), Tools: std})
		Expect(r.Prepared.CodeModeActive).To(BeFalse(), "fields without enabled: true must leave code mode inactive")
		Expect(r.ModelToolNames()).To(ConsistOf(off), "fields without enabled: true must leave the model tool list as without code mode")
		on := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 5000}), Tools: std})
		Expect(on.ModelToolNames()).To(ConsistOf("exec", "wait"), "enabled: true must activate code mode")
	})

	It("CM-CFG-02", "shorthand tools.codeMode: true enables code mode and false disables it", func(ctx SpecContext) {
		off := ToolNames(SurfaceWithoutCodeMode(ctx, RunOptions{Tools: std}))
		Expect(NewRun(ctx, RunOptions{CodeMode: true, Tools: std}).ModelToolNames()).To(ConsistOf("exec", "wait"), "tools.codeMode: true must expose exactly exec and wait")
		no := NewRun(ctx, RunOptions{CodeMode: false, Tools: std})
		Expect(no.Prepared.CodeModeActive).To(BeFalse(), "tools.codeMode: false must leave code mode inactive")
		Expect(no.ModelToolNames()).To(ConsistOf(off), "tools.codeMode: false must leave the model tool list as without code mode")
	})

	It("CM-CFG-03", "omitted, false, or an object without enabled: true leaves code mode disabled", func(ctx SpecContext) {
		off := ToolNames(SurfaceWithoutCodeMode(ctx, RunOptions{Tools: std}))
		for _, v := range []any{nil, false, map[string]any{}, map[string]any{"enabled": false}, map[string]any{"enabled": "true"}, map[string]any{"enabled": 1}} {
			r := NewRun(ctx, RunOptions{CodeMode: v, Tools: std})
			Expect(r.Prepared.CodeModeActive).To(BeFalse(), "tools.codeMode = %v must leave code mode inactive", v)
			if m, ok := v.(map[string]any); ok && m["enabled"] != nil && m["enabled"] != false && r.Prepared.Failure != nil {
				// A mistyped enabled refused when the config loads also leaves
				// code mode off, as 000 says; it is no fallback to direct tools
				// (verdict audit A9).
				Expect(r.Prepared.Failure.Code).To(Equal("invalid_config"), "tools.codeMode = %v: a refused config must fail with invalid_config: %+v", v, r.Prepared.Failure)
				Expect(r.Prepared.Tools).To(BeEmpty(), "tools.codeMode = %v: a refused config must not fall back to direct tools", v)
				continue
			}
			Expect(r.ModelToolNames()).To(ConsistOf(off), "tools.codeMode = %v must leave the model tool list as without code mode", v)
		}
	})

	It("CM-CFG-04", "defaults apply: searchDefaultLimit 8, maxSearchLimit 50, maxOutputBytes 65536, maxPendingToolCalls 16", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: append(fillers(60), tools.Slow())})
		if ec := r.Prepared.EffectiveConfig; ec != nil {
			Expect(ec.TimeoutMs).To(BeEquivalentTo(10000), "effectiveConfig.timeoutMs default")
			Expect(ec.MemoryLimitBytes).To(BeEquivalentTo(67108864), "effectiveConfig.memoryLimitBytes default")
			Expect(ec.MaxOutputBytes).To(BeEquivalentTo(65536), "effectiveConfig.maxOutputBytes default")
			Expect(ec.MaxSnapshotBytes).To(BeEquivalentTo(10485760), "effectiveConfig.maxSnapshotBytes default")
			Expect(ec.MaxPendingToolCalls).To(BeEquivalentTo(16), "effectiveConfig.maxPendingToolCalls default")
			Expect(ec.SnapshotTTLSeconds).To(BeEquivalentTo(900), "effectiveConfig.snapshotTTLSeconds default")
			Expect(ec.SearchDefaultLimit).To(BeEquivalentTo(8), "effectiveConfig.searchDefaultLimit default")
			Expect(ec.MaxSearchLimit).To(BeEquivalentTo(50), "effectiveConfig.maxSearchLimit default")
		}
		res, _ := r.RunToCompletion(ctx, Guest(`return [(await search("widget")).length, (await search("widget", {limit: 100})).length];`))
		Expect(res).To(CompleteWith([]int{8, 50}), "tools.search must default to 8 results and cap limit 100 at 50")
		res, _ = r.RunToCompletion(ctx, `text("x".repeat(60000)); return 1;`)
		Expect(res).To(BeCompleted(), "60000 bytes of output are within the default maxOutputBytes")
		res, _ = r.RunToCompletion(ctx, `text("x".repeat(70000)); return 1;`)
		// The code (output_limit_exceeded) is CM-LIM-03's charge: here only that the default applies.
		Expect(res).To(BeFailed(), "70000 bytes of output exceed the default maxOutputBytes")
		res, _ = r.RunToCompletion(ctx, Guest(`const ps = []; for (let i = 0; i < 16; i++) ps.push(dispatch("slow", {ms: 50})); return (await Promise.all(ps)).length;`))
		Expect(res).To(CompleteWith(16), "16 concurrent nested calls (the default maxPendingToolCalls) must all run")
		res, _ = r.RunToCompletion(ctx, Guest(`const ps = []; for (let i = 0; i < 17; i++) ps.push(dispatch("slow", {ms: 200})); return (await Promise.all(ps)).length;`))
		if Features().Has("bridge-queue") { // the 17th call queues (CM-NEST-05)
			Expect(res).To(CompleteWith(17), "under bridge-queue a 17th call waits for a slot of the default maxPendingToolCalls 16")
			Expect(r.Tools.MaxConcurrent()).To(BeNumerically("<=", 16), "never more than the default maxPendingToolCalls 16 in flight")
		} else {
			// The code (too_many_pending_tool_calls) is CM-LIM-05's charge.
			Expect(res).To(BeFailed(), "17 concurrent nested calls must exceed the default maxPendingToolCalls 16")
		}
	})

	It("CM-CFG-05", "out-of-range values are clamped and invalid values fall back to the default", func(ctx SpecContext) {
		// Out-of-range values must be clamped: a target that refuses them
		// fails here. Each run is checked as prepared before its cells, so a
		// refusal is named, not met as the next exec's "unknown run" (verdict
		// audit A1).
		prepared := func(r *Run, what string) {
			Expect(r.Prepared.Failure).To(BeNil(), "%s: tools.codeMode %s must be clamped, not refused: %+v", what, r.Params.CodeMode, r.Prepared.Failure)
		}
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxSearchLimit": 500, "maxOutputBytes": 10}), Tools: append(fillers(60), tools.Slow())})
		prepared(r, "out-of-range limits")
		res, _ := r.RunToCompletion(ctx, Guest(`return (await search("widget", {limit: 100})).length;`))
		Expect(res).To(CompleteWith(50), "maxSearchLimit 500 clamps to 50")
		res, _ = r.RunToCompletion(ctx, `text("x".repeat(500)); return 1;`)
		Expect(res).To(BeCompleted(), "maxOutputBytes 10 clamps up to 1024")
		res, _ = r.RunToCompletion(ctx, `text("x".repeat(3000)); return 1;`)
		Expect(res).To(BeFailedWith("output_limit_exceeded"), "maxOutputBytes clamped to 1024 still applies")

		r2 := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"searchDefaultLimit": 30, "maxSearchLimit": 5}), Tools: append(fillers(20), tools.Slow())})
		prepared(r2, "searchDefaultLimit over maxSearchLimit")
		res, _ = r2.RunToCompletion(ctx, Guest(`return (await search("widget")).length;`))
		Expect(res).To(CompleteWith(5), "searchDefaultLimit is capped at maxSearchLimit")

		r3 := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"maxPendingToolCalls": 500}), Tools: append(fillers(60), tools.Slow())})
		prepared(r3, "maxPendingToolCalls over 128")
		res, _ = r3.RunToCompletion(ctx, Guest(`const ps = []; for (let i = 0; i < 100; i++) ps.push(dispatch("slow", {ms: 50})); return (await Promise.all(ps)).length;`))
		Expect(res).To(CompleteWith(100), "maxPendingToolCalls 500 clamps to 128")

		// Invalid values fall back to the default (the OpenClaw-source clause).
		// A config refused when it loads, with invalid_config and no tools, is
		// no fallback to direct tools and the seed says nothing of load-time
		// validation: it conforms too (verdict audit A9).
		for _, c := range []struct {
			cfg        map[string]any
			code, what string
			want       any
		}{
			{map[string]any{"maxPendingToolCalls": "many"}, `const ps = []; for (let i = 0; i < 16; i++) ps.push(dispatch("slow", {ms: 50})); return (await Promise.all(ps)).length;`, "an invalid maxPendingToolCalls falls back to 16", 16},
			{map[string]any{"maxPendingToolCalls": 2.5}, `const ps = []; for (let i = 0; i < 10; i++) ps.push(dispatch("slow", {ms: 50})); return (await Promise.all(ps)).length;`, "a non-integer maxPendingToolCalls falls back to 16", 10},
			{map[string]any{"maxSearchLimit": 0}, `return (await search("widget", {limit: 100})).length;`, "a non-positive maxSearchLimit falls back to 50", 50},
		} {
			ri := NewRun(ctx, RunOptions{CodeMode: Enabled(c.cfg), Tools: append(fillers(60), tools.Slow())})
			if f := ri.Prepared.Failure; f != nil {
				Expect(f.Code).To(Equal("invalid_config"), "tools.codeMode %v: a refused config must fail with invalid_config: %+v", c.cfg, f)
				Expect(ri.Prepared.Tools).To(BeEmpty(), "tools.codeMode %v: a refused config must not fall back to direct tools", c.cfg)
				continue
			}
			res, _ = ri.RunToCompletion(ctx, Guest(c.code))
			Expect(res).To(CompleteWith(c.want), c.what)
		}
	})
})

// rawJSON decodes a raw result into a generic map for shape checks.
func rawJSON(raw json.RawMessage) map[string]any {
	var m map[string]any
	Expect(json.Unmarshal(raw, &m)).To(Succeed(), "a result must be a JSON object: %s", raw)
	return m
}

func noHostFrames(msg string) {
	Expect(msg).NotTo(ContainSubstring(".go:"), "host (Go) stack frames leaked into the error")
	Expect(msg).NotTo(MatchRegexp(`\n\s+at `), "a stack trace leaked into the error")
	Expect(strings.Count(msg, "Error:")).To(BeNumerically("<=", 1), "duplicated error headers: %q", msg)
}
