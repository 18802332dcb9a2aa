package e2e

import (
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
	for k, v := range extra {
		m[k] = v
	}
	return Enabled(m)
}

// slowCall is guest code whose nested call outlives one exec.
const slowCall = `const r = await tools.call(id("slow"), {ms: 1500, tag: "late"}); text("after restore: " + r.tag); return r;`

var _ = Describe("e2e", "exec and wait", func() {
	It("CM-EXEC-01", "exactly one of code/command must be non-empty, and both must match when present", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		Expect(r.ExecInput(ctx, map[string]any{})).To(BeFailedWith(result.CodeInvalidInput))
		Expect(r.ExecInput(ctx, map[string]any{"code": ""})).To(BeFailedWith(result.CodeInvalidInput))
		Expect(r.ExecInput(ctx, map[string]any{"code": "return 1", "command": "return 2"})).To(BeFailedWith(result.CodeInvalidInput))
		Expect(r.ExecInput(ctx, map[string]any{"code": "return 1", "command": "return 1"})).To(CompleteWith(1))
		Expect(r.ExecInput(ctx, map[string]any{"CODE": "return 1"})).To(BeFailedWith(result.CodeInvalidInput), "field names are case-sensitive")
		Expect(r.ExecInput(ctx, map[string]any{"Command": "return 1"})).To(BeFailedWith(result.CodeInvalidInput), "field names are case-sensitive")
	})

	It("CM-EXEC-02", "command is accepted as an alias of code", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		Expect(r.ExecInput(ctx, map[string]any{"command": "return 6 * 7"})).To(CompleteWith(42))
	})

	It("CM-EXEC-03", "language defaults to javascript; a language outside languages fails with unsupported_language", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"languages": []string{"javascript"}}), Tools: tools.Standard()})
		Expect(r.ExecInput(ctx, map[string]any{"code": "return typeof tools"})).To(CompleteWith("object"))
		Expect(r.ExecInput(ctx, map[string]any{"code": "return 1", "language": "javascript"})).To(CompleteWith(1))
		Expect(r.ExecInput(ctx, map[string]any{"code": "return 1", "language": "typescript"})).To(BeFailedWith(result.CodeUnsupportedLanguage))
		Expect(r.ExecInput(ctx, map[string]any{"code": "return 1", "language": "python"})).To(BeFailedWith(result.CodeUnsupportedLanguage))
	})

	It("CM-EXEC-04", "module loader patterns fail with module_access_denied before any tool is dispatched; identifiers and strings containing import run", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		for _, code := range []string{
			`await tools.call(id("echo"), {}); import fs from "fs"; return 1;`,
			`await tools.call(id("echo"), {}); const m = await import("fs"); return 1;`,
			`await tools.call(id("echo"), {}); const fs = require("fs"); return 1;`,
			`await tools.call(id("echo"), {}); return import.meta.url;`,
			`return await (0, eval)('import("os")');`,
		} {
			res, _ := r.RunToCompletion(ctx, Guest(code))
			Expect(res).To(BeFailedWith(result.CodeModuleAccessDenied))
		}
		Expect(r.Tools.Calls()).To(BeEmpty(), "no tool may be dispatched by a cell that uses module loading")
		res, _ := r.RunToCompletion(ctx, `const importance = 2; const s = "import x from 'y'"; const o = {imported: true}; return [importance, s, o.imported, "require('x')"];`)
		Expect(res).To(CompleteWith([]any{2, "import x from 'y'", true, "require('x')"}))
	})

	It("CM-EXEC-05", "results follow the completed / waiting / failed union", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: tools.Standard()})
		done := r.Exec(ctx, `text("hi"); return {ok: true};`)
		m := rawJSON(done.Raw)
		Expect(m).To(HaveKeyWithValue("status", "completed"))
		Expect(m).To(HaveKey("value"))
		Expect(m).To(HaveKeyWithValue("telemetry", BeAssignableToTypeOf(map[string]any{})))
		Expect(m["output"]).To(Equal([]any{map[string]any{"type": "text", "text": "hi"}}))

		failed := r.Exec(ctx, `throw new TypeError("bad")`)
		m = rawJSON(failed.Raw)
		Expect(m).To(HaveKeyWithValue("status", "failed"))
		Expect(m).To(HaveKeyWithValue("error", BeAssignableToTypeOf("")))
		Expect(m).To(HaveKeyWithValue("telemetry", BeAssignableToTypeOf(map[string]any{})))
		if c, ok := m["code"]; ok {
			Expect(result.ErrorCode(c.(string)).Valid()).To(BeTrue(), "unknown error code %v", c)
		}

		waiting := r.Exec(ctx, Guest(slowCall))
		m = rawJSON(waiting.Raw)
		Expect(m).To(HaveKeyWithValue("status", "waiting"))
		Expect(m).To(HaveKeyWithValue("runId", Not(BeEmpty())))
		Expect(m).To(HaveKeyWithValue("reason", BeElementOf("pending_tools", "yield")))
		Expect(m).To(HaveKeyWithValue("telemetry", BeAssignableToTypeOf(map[string]any{})))
		if p, ok := m["pendingToolCalls"]; ok {
			Expect(p).To(BeAssignableToTypeOf([]any{}))
		}
	})

	It("CM-EXEC-06", "completed only once no guest work is pending and with a JSON-compatible value", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		res, _ := r.RunToCompletion(ctx, Guest(`tools.call(id("slow"), {ms: 300}); return {d: new Date(0), n: 1, u: undefined, nested: [1, "a", null]};`))
		Expect(res).To(CompleteWith(map[string]any{"d": "1970-01-01T00:00:00.000Z", "n": 1, "nested": []any{1, "a", nil}}))
		Expect(r.Tools.Finished()).To(Equal(1), "the cell completed while a nested call it started was still running")
	})

	It("CM-EXEC-07", "a promise that stays pending with no host work fails instead of completing or hanging", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 2000}), Tools: tools.Standard()})
		res, _ := r.RunToCompletion(ctx, `await new Promise(() => {}); return "never";`)
		Expect(res).To(BeFailed())
	})

	It("CM-EXEC-08", "wait resumes a suspended run and the restored VM receives the nested tool result", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: tools.Standard()})
		first := r.Exec(ctx, Guest(`text("before"); `+slowCall))
		Expect(first).To(BeWaiting())
		res := first
		var outputs []result.Output
		outputs = append(outputs, first.Output...)
		for i := 0; res.Status == result.StatusWaiting && i < 10; i++ {
			res = r.Wait(ctx, res.RunID)
			outputs = append(outputs, res.Output...)
		}
		Expect(res).To(CompleteWith(map[string]any{"slept": 1500, "tag": "late"}))
		Expect(outputs).To(ContainElement(result.TextOutput("after restore: late")), "output produced after the restore must be returned")
	})

	It("CM-EXEC-09", "wait fails for an unknown runId, another session, an aborted run and an expired snapshot", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: suspendable(map[string]any{"snapshotTtlSeconds": 1}), Tools: tools.Standard()})
		Expect(r.Wait(ctx, "no-such-run-id")).To(BeFailed())
		Expect(r.WaitInput(ctx, map[string]any{})).To(BeFailed())

		w := r.Exec(ctx, Guest(slowCall))
		Expect(w).To(BeWaiting())
		other := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: tools.Standard()})
		Expect(other.Wait(ctx, w.RunID)).To(BeFailed(), "a run of another session resumed this run's snapshot")

		time.Sleep(2500 * time.Millisecond) // the TTL is the subject under test
		Expect(r.Wait(ctx, w.RunID)).To(BeFailed(), "an expired snapshot was resumed")

		a := NewRun(ctx, RunOptions{CodeMode: suspendable(nil), Tools: tools.Standard()})
		w2 := a.Exec(ctx, Guest(slowCall))
		Expect(w2).To(BeWaiting())
		a.Abort(ctx)
		Expect(a.Wait(ctx, w2.RunID)).To(BeFailed(), "an aborted run was resumed")
	})

	It("CM-EXEC-12", "each exec starts a fresh JavaScript context", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		Expect(r.Exec(ctx, `globalThis.leak = 1; var v = 2; function f() {} Object.prototype.polluted = true; return 1;`)).To(CompleteWith(1))
		Expect(r.Exec(ctx, `return [typeof leak, typeof v, typeof f, ({}).polluted === undefined];`)).To(CompleteWith([]any{"undefined", "undefined", "undefined", true}))
	})

	It("CM-EXEC-13", "guest errors carry the engine's error name and message and no host frames", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		res := r.Exec(ctx, `const o = null; return o.missing;`)
		Expect(res).To(BeFailed())
		Expect(res.Error).To(ContainSubstring("TypeError"))
		noHostFrames(res.Error)
		res = r.Exec(ctx, `return (;`)
		Expect(res).To(BeFailed())
		Expect(res.Error).To(ContainSubstring("SyntaxError"))
		noHostFrames(res.Error)
		res = r.Exec(ctx, `throw new RangeError("custom message 123");`)
		Expect(res.Error).To(And(ContainSubstring("RangeError"), ContainSubstring("custom message 123")))
		noHostFrames(res.Error)
	})

	It("CM-EXEC-14", "output produced before a failure is kept in the failed result", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		res, steps := r.RunToCompletion(ctx, Guest(`text("one"); json({two: 2}); await tools.call(id("echo"), {}); text("three"); throw new Error("boom");`))
		Expect(res).To(BeFailed())
		Expect(AllOutput(steps)).To(Equal([]result.Output{result.TextOutput("one"), result.JSONOutput([]byte(`{"two":2}`)), result.TextOutput("three")}))
	})
})
