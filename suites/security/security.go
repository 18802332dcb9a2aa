// Package security holds the specs of the security boundary: no host access,
// host errors as plain data, crash isolation.
package security

import (
	"github.com/codemode-conformance/codemode/fakes/tools"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var _ = Describe("security", "security boundary", func() {
	It("CM-SEC-01", "no filesystem, network, subprocess, module, environment or host globals in the guest", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		res := r.Exec(ctx, `const names = ["process", "require", "fetch", "std", "os", "WebAssembly", "XMLHttpRequest", "Deno", "Bun", "module", "exports", "__dirname", "Buffer", "scriptArgs", "setTimeout"];
			const present = names.filter((n) => typeof globalThis[n] !== "undefined");
			let readFile = "none"; try { readFile = typeof (globalThis.std && std.loadFile) } catch (e) { readFile = "threw" }
			return {present, readFile};`)
		Expect(res).To(CompleteWith(map[string]any{"present": []any{}, "readFile": "undefined"}))
	})

	It("CM-SEC-02", "host errors reach the guest as plain data whose constructor chain is the guest's own", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		res, _ := r.RunToCompletion(ctx, Guest(`const errs = [];
			try { await tools.call(id("fail"), {message: "x"}); } catch (e) { errs.push(e); }
			try { await tools.call("no:such:tool", {}); } catch (e) { errs.push(e); }
			try { await tools.describe("no:such:tool"); } catch (e) { errs.push(e); }
			return errs.map((e) => ({
				guestFunction: e.constructor.constructor === Function,
				fnKeys: Object.getOwnPropertyNames(e).filter((k) => typeof e[k] === "function").length,
				stackObject: typeof e.stack === "object" && e.stack !== null,
				escape: (() => { try { return e.constructor.constructor("return typeof process")(); } catch (x) { return "threw"; } })(),
			}));`))
		Expect(res).To(BeCompleted())
		for _, e := range res.ValueAny().([]any) {
			Expect(e).To(Equal(map[string]any{"guestFunction": true, "fnKeys": float64(0), "stackObject": false, "escape": "undefined"}))
		}
	})

	It("CM-SEC-04", "a guest that traps the engine fails only its own cell; the next exec works", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 2000}), Tools: tools.Standard()})
		for _, code := range []string{
			`function f(n) { return f(n + 1) + 1; } return f(0);`,
			`let o = {}; for (let i = 0; i < 200000; i++) o = {o}; return JSON.stringify(o).length;`,
			`const a = []; a.length = 4294967295; return a.sort().length;`,
		} {
			res, _ := r.RunToCompletion(ctx, code)
			Expect(res.Status).NotTo(BeEmpty())
			Expect(r.Exec(ctx, `return 40 + 2`)).To(CompleteWith(42), "the runtime must keep serving after: %s", code)
		}
	})
})
