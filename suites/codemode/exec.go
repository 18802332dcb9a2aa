package codemode

import (
	"fmt"
	"strings"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

// suspendable is a config whose timeoutMs is shorter than a slow call, so that
// any conformant target must return waiting for it (the wall-clock limit is per
// exec/wait call).
func suspendable(extra map[string]any) map[string]any {
	m := map[string]any{"timeoutMs": 1000}
	for k, v := range Sorted(extra) {
		m[k] = v
	}
	return Enabled(m)
}

// slowCall is guest code whose nested call outlives one exec.
const slowCall = `const r = (await call("slow", {ms: 1500, tag: "late"})); text("after restore: " + r.tag); return r;`

// roomy is suspendable with room for a busy machine: timeoutMs 3000, which a
// roomySlowMs call outlives. For specs whose subject is the suspension or what
// follows it, not the budget: on a loaded machine (load 20 on 2 cores) a
// trivial cell, a cell building a few MiB, or the restore of its snapshot can
// take longer than 1 s, and would end with timeout instead.
func roomy(extra map[string]any) map[string]any {
	m := map[string]any{"timeoutMs": 3000}
	for k, v := range Sorted(extra) {
		m[k] = v
	}
	return suspendable(m)
}

// roomySlowMs is how long the slow call of a roomy run takes, in ms.
const roomySlowMs = 3500

// roomySlowCall is slowCall for a roomy run.
var roomySlowCall = strings.Replace(slowCall, "ms: 1500", fmt.Sprintf("ms: %d", roomySlowMs), 1)

var _ = Describe("codemode", "exec and wait", func() {
	It("CM-EXEC-01", "exactly one of code/command must be non-empty, and both must match when present", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		Expect(r.ExecInput(ctx, map[string]any{})).To(BeFailedWith(result.CodeInvalidInput), "an exec input with neither code nor command must fail with invalid_input")
		Expect(r.ExecInput(ctx, map[string]any{"code": ""})).To(BeFailedWith(result.CodeInvalidInput), "an empty code must fail with invalid_input")
		Expect(r.ExecInput(ctx, map[string]any{"code": "return 1", "command": "return 2"})).To(BeFailedWith(result.CodeInvalidInput), "code and command that differ must fail with invalid_input")
		Expect(r.ExecInput(ctx, map[string]any{"code": "return 1", "command": "return 1"})).To(CompleteWith(1), "code and command that are equal must run the program")
		Expect(r.ExecInput(ctx, map[string]any{"CODE": "return 1"})).To(BeFailedWith(result.CodeInvalidInput), "field names are case-sensitive")
		Expect(r.ExecInput(ctx, map[string]any{"Command": "return 1"})).To(BeFailedWith(result.CodeInvalidInput), "field names are case-sensitive")
	})

	It("CM-EXEC-02", "command is accepted as an alias of code", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		Expect(r.ExecInput(ctx, map[string]any{"command": "return 6 * 7"})).To(CompleteWith(42), "command alone must run as the program")
	})

	It("CM-EXEC-03", "language defaults to javascript, and javascript is always accepted", func(ctx SpecContext) {
		// languages is 000's field (001 has none, its cells are plain JavaScript): sent only under v1.
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(Gen1Fields(nil, map[string]any{"languages": []string{"javascript"}})), Tools: tools.Standard()})
		// A TypeScript-only cell tells a default of javascript from one of typescript.
		Expect(r.ExecInput(ctx, map[string]any{"code": "const x = 1 as number; return x"})).To(BeFailed(), "a cell without language must run as javascript, where a TypeScript cast is a syntax error")
		Expect(r.ExecInput(ctx, map[string]any{"code": "return typeof 42"})).To(CompleteWith("number"), "a cell without language must run as javascript (the marker needs no guest API)")
		Expect(r.ExecInput(ctx, map[string]any{"code": "return 1", "language": "javascript"})).To(CompleteWith(1), "language javascript must run")
	})

	It("CM-EXEC-04", "module loader patterns fail with module_access_denied before any tool is dispatched; identifiers and strings containing import run", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		for _, code := range []string{
			`await call("echo", {}); import fs from "fs"; return 1;`,
			`await call("echo", {}); const m = await import("fs"); return 1;`,
			`await call("echo", {}); const fs = require("fs"); return 1;`,
			`await call("echo", {}); return import.meta.url;`,
			`return await (0, eval)('import("os")');`,
		} {
			res, _ := r.RunToCompletion(ctx, Guest(code))
			Expect(res).To(BeFailedWith(result.CodeModuleAccessDenied), "module loading must fail with module_access_denied: %s", code)
		}
		Expect(r.Tools.Calls()).To(BeEmpty(), "no tool may be dispatched by a cell that uses module loading")
		res, _ := r.RunToCompletion(ctx, `const importance = 2; const s = "import x from 'y'"; const o = {imported: true}; return [importance, s, o.imported, "require('x')"];`)
		Expect(res).To(CompleteWith([]any{2, "import x from 'y'", true, "require('x')"}), "identifiers and strings that merely contain import or require must run")
	})

	It("CM-EXEC-05", "results follow the completed / waiting / failed union", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: roomy(nil), Tools: tools.Standard()})
		done := r.Exec(ctx, `text("hi"); return {ok: true};`)
		m := rawJSON(done.Raw)
		Expect(m).To(HaveKeyWithValue("status", "completed"), "a completed result has status completed: %s", done.Raw)
		Expect(m).To(HaveKey("value"), "a completed result always has value: %s", done.Raw)
		Expect(m).To(HaveKeyWithValue("telemetry", BeAssignableToTypeOf(map[string]any{})), "a completed result has a telemetry object: %s", done.Raw)
		Expect(m["output"]).To(Equal([]any{map[string]any{"type": "text", "text": "hi"}}), "a completed result carries its text output: %s", done.Raw)

		failed := r.Exec(ctx, `throw new TypeError("bad")`)
		m = rawJSON(failed.Raw)
		Expect(m).To(HaveKeyWithValue("status", "failed"), "a thrown error gives status failed: %s", failed.Raw)
		Expect(m).To(HaveKeyWithValue("error", BeAssignableToTypeOf("")), "a failed result has an error string: %s", failed.Raw)
		Expect(m).To(HaveKeyWithValue("telemetry", BeAssignableToTypeOf(map[string]any{})), "a failed result has a telemetry object: %s", failed.Raw)
		if c, ok := m["code"]; ok {
			Expect(result.ErrorCode(c.(string)).Valid()).To(BeTrue(), "unknown error code %v", c)
		}

		// A refused call is a result of the same union (000 [wait]: "L'output
		// è la stessa union"; CM-EXEC-08 "the same result union"): a failed
		// result, not an error of another shape. Every other spec is blocked
		// by this requirement on such a refusal (framework.UnionOwner).
		for _, refused := range []struct {
			what string
			res  func() Result
		}{
			{"an exec input without code or command", func() Result { return r.ExecInput(ctx, map[string]any{}) }},
			{"a wait for an unknown runId", func() Result { return r.Wait(ctx, "no-such-run-id") }},
		} {
			res := refused.res()
			m = rawJSON(res.Raw)
			Expect(m).To(HaveKeyWithValue("status", "failed"), "%s is refused with a failed result of the union: %s", refused.what, res.Raw)
			Expect(m).To(HaveKeyWithValue("error", BeAssignableToTypeOf("")), "the failed result refusing %s has an error string: %s", refused.what, res.Raw)
			Expect(m).To(HaveKeyWithValue("telemetry", BeAssignableToTypeOf(map[string]any{})), "the failed result refusing %s has a telemetry object: %s", refused.what, res.Raw)
			if c, ok := m["code"]; ok {
				Expect(result.ErrorCode(fmt.Sprint(c)).Valid()).To(BeTrue(), "unknown error code %v refusing %s", c, refused.what)
			}
		}

		waiting := r.Exec(ctx, Guest(roomySlowCall))
		m = rawJSON(waiting.Raw)
		Expect(m).To(HaveKeyWithValue("status", "waiting"), "a nested call that outlives the exec gives status waiting: %s", waiting.Raw)
		Expect(m).To(HaveKeyWithValue("runId", Not(BeEmpty())), "a waiting result has a non-empty runId: %s", waiting.Raw)
		Expect(m).To(HaveKeyWithValue("reason", BeElementOf("pending_tools", "yield")), "a waiting result's reason is pending_tools or yield: %s", waiting.Raw)
		Expect(m).To(HaveKeyWithValue("telemetry", BeAssignableToTypeOf(map[string]any{})), "a waiting result has a telemetry object: %s", waiting.Raw)
		if p, ok := m["pendingToolCalls"]; ok {
			Expect(p).To(BeAssignableToTypeOf([]any{}), "pendingToolCalls, when present, is an array: %s", waiting.Raw)
		}
	})

	It("CM-EXEC-06", "completed only once no guest work is pending and with a JSON-compatible value", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		// The nested call is not awaited, but its continuation is guest work
		// still pending: the cell completes only after it ran. How values
		// such as a Date cross the output adapter is CM-GUEST-08's charge, so
		// the value here is plain JSON.
		res, steps := r.RunToCompletion(ctx, Guest(`dispatch("slow", {ms: 300}).then(() => text("nested call settled")); return {n: 1, nested: [1, "a", null]};`))
		finished := r.Tools.Finished()
		Expect(res).To(CompleteWith(map[string]any{"n": 1, "nested": []any{1, "a", nil}}), "the cell must complete with its JSON value")
		Expect(finished).To(Equal(1), "the cell completed while a nested call it started was still running")
		Expect(AllOutput(steps)).To(ContainElement(result.TextOutput("nested call settled")), "the cell completed before the continuation of its nested call ran (guest work was still pending): %s", res)
	})

	It("CM-EXEC-07", "a promise that stays pending with no host work fails instead of completing or hanging", func(ctx SpecContext) {
		// The text asks only that the cell fails and does not hang: a failure
		// at the end of the budget conforms (protocol.md §14.8), and the
		// failure's code is not CM-EXEC-07's to judge. "Does not hang" is
		// judged against the bound protocol.md calls conformant: each
		// exec/wait answered within the run's timeoutMs +
		// Timeouts.ToolCallSlack (15 s, protocol.md §1; §14.7 lets a target
		// start the budget when the guest's code starts, as long as the
		// answer arrives within that bound). The harness gives each call
		// exactly that bound (Run.Exec), and HangIsFailure makes a call that
		// outlives it this requirement's failure, not a harness error
		// (fake:never-settled-late-timeout answers 5 s past it).
		const timeoutMs = 2000
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": timeoutMs}), Tools: tools.Standard()})
		start := time.Now()
		res, steps := r.RunToCompletion(ctx, `await new Promise(() => {}); return "never";`)
		took := time.Since(start)
		Expect(res).To(BeFailed(), "a promise that never settles with no host work pending must fail, not complete or hang (%d exec/wait call(s) at timeoutMs %d took %s, each bounded by timeoutMs + %s): %s",
			len(steps), timeoutMs, took.Round(time.Millisecond), Timeouts.ToolCallSlack, res.Raw)
	}, HangIsFailure)

	It("CM-EXEC-08", "wait resumes a suspended cell and the resumed cell receives the nested tool result", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: tools.Standard()})
		first := r.Exec(ctx, Guest(`text("before"); `+slowCall))
		Expect(first).To(BeWaiting(), "the slow nested call must suspend the cell")
		res, steps := r.Follow(ctx, first)
		outputs := AllOutput(steps)
		Expect(res).To(CompleteWith(map[string]any{"slept": 1500, "tag": "late"}), "wait must resume the cell and deliver the nested call's result to it %s", EnvelopeNote)
		Expect(outputs).To(ContainElement(result.TextOutput("after restore: late")), "output produced after the cell resumed must be returned %s", EnvelopeNote)
	})

	It("CM-EXEC-09", "wait fails for an unknown runId, another session, another run of the same session, an aborted run and an expired snapshot", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(map[string]any{"snapshotTtlSeconds": 2}), Tools: tools.Standard()})
		Expect(r.Wait(ctx, "no-such-run-id")).To(BeFailed(), "wait for an unknown runId must fail")
		Expect(r.WaitInput(ctx, map[string]any{})).To(BeFailed(), "wait without runId must fail")

		w := r.Exec(ctx, Guest(slowCall))
		Expect(w).To(BeWaiting(), "the slow nested call must suspend the cell")
		other := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: tools.Standard()})
		Expect(other.Wait(ctx, w.RunID)).To(BeFailed(), "a run of another session resumed this run's snapshot")
		sibling := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: tools.Standard(), Context: r.Params.RunContext})
		Expect(sibling.Wait(ctx, w.RunID)).To(BeFailed(), "another run of the same session (agent %q, session %q) resumed this run's snapshot", r.Params.AgentID, r.Params.SessionID)

		time.Sleep(3500 * time.Millisecond) // the TTL (2 s, above timeoutMs: protocol.md §10) is the subject under test
		Expect(r.Wait(ctx, w.RunID)).To(BeFailed(), "an expired snapshot was resumed")

		a := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: tools.Standard()})
		w2 := a.Exec(ctx, Guest(slowCall))
		Expect(w2).To(BeWaiting(), "the slow nested call must suspend the cell")
		a.Abort(ctx)
		Expect(a.Wait(ctx, w2.RunID)).To(BeFailed(), "an aborted run was resumed")
	})

	It("CM-EXEC-12", "each exec starts a fresh JavaScript context", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		Expect(r.Exec(ctx, `globalThis.leak = 1; var v = 2; function f() {} Object.prototype.polluted = true; return 1;`)).To(CompleteWith(1), "the first cell sets globals and pollutes Object.prototype")
		Expect(r.Exec(ctx, `return [typeof leak, typeof v, typeof f, ({}).polluted === undefined];`)).To(CompleteWith([]any{"undefined", "undefined", "undefined", true}), "a new exec must not see the earlier cell's globals, functions or prototype changes")
	})

	It("CM-EXEC-13", "guest errors carry the engine's error name and message and no host frames", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		res := r.Exec(ctx, `const o = null; return o.missing;`)
		Expect(res).To(BeFailed(), "reading a member of null must fail the cell")
		Expect(res.Error).To(ContainSubstring("TypeError"), "the error must carry the engine's error name TypeError")
		noHostFrames(res.Error)
		res = r.Exec(ctx, `return (;`)
		Expect(res).To(BeFailed(), "a syntax error must fail the cell")
		Expect(res.Error).To(ContainSubstring("SyntaxError"), "the error must carry the engine's error name SyntaxError")
		noHostFrames(res.Error)
		res = r.Exec(ctx, `throw new RangeError("custom message 123");`)
		Expect(res.Error).To(And(ContainSubstring("RangeError"), ContainSubstring("custom message 123")), "the error must carry the thrown error's name and message")
		noHostFrames(res.Error)
	})

	It("CM-EXEC-14", "output produced before a failure is kept in the failed result", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		res, steps := r.RunToCompletion(ctx, Guest(`text("one"); json({two: 2}); await call("echo", {}); text("three"); throw new Error("boom");`))
		Expect(res).To(BeFailed(), "the uncaught error must fail the cell")
		Expect(AllOutput(steps)).To(Equal([]result.Output{result.TextOutput("one"), result.JSONOutput([]byte(`{"two":2}`)), result.TextOutput("three")}), "the output produced before the failure, across the exec and its waits, must be kept")
	})
})
