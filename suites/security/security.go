// Package security holds the specs of the security boundary: no host access,
// host errors as plain data, crash isolation.
package security

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var _ = Describe("security", "security boundary", func() {
	It("CM-SEC-01", "no filesystem, network, subprocess, module, environment or host globals in the guest", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		names := `["process", "require", "fetch", "std", "os", "WebAssembly", "XMLHttpRequest", "Deno", "Bun", "module", "exports", "__dirname", "Buffer", "scriptArgs", "setTimeout"]`
		if Features().Has("bridge-queue") {
			// Under 001 setTimeout is a guest timer on the bridge (CM-NEST-13,
			// protocol.md §12.12), not a host global.
			names = `["process", "require", "fetch", "std", "os", "WebAssembly", "XMLHttpRequest", "Deno", "Bun", "module", "exports", "__dirname", "Buffer", "scriptArgs"]`
		}
		res := r.Exec(ctx, `const names = `+names+`;
			const present = names.filter((n) => typeof globalThis[n] !== "undefined");
			let readFile = "none"; try { readFile = typeof (globalThis.std && std.loadFile) } catch (e) { readFile = "threw" }
			return {present, readFile};`)
		Expect(res).To(CompleteWith(map[string]any{"present": []any{}, "readFile": "undefined"}),
			"no host global may be present in the guest (present lists those found) and std.loadFile must not exist")
	})

	It("CM-SEC-02", "host errors reach the guest as plain data whose constructor chain is the guest's own", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		// The unknown id is the subject of the last two cases, so they call
		// 000's tools directly, and only where the cell has it (a v2 target
		// without tools-api has no such host error to give).
		res, _ := r.RunToCompletion(ctx, Guest(`const errs = [];
			try { await call("fail", {message: "x"}); } catch (e) { errs.push(["failing tool", e]); }
			if (typeof tools === "object" && tools !== null) {
				try { await tools.call("no:such:tool", {}); } catch (e) { errs.push(["unknown tool call", e]); }
				try { await tools.describe("no:such:tool"); } catch (e) { errs.push(["unknown describe", e]); }
			}
			return errs.map(([what, e]) => ({
				what,
				guestFunction: e.constructor.constructor === Function,
				fnKeys: Object.getOwnPropertyNames(e).filter((k) => typeof e[k] === "function").length,
				stackObject: typeof e.stack === "object" && e.stack !== null,
				escape: (() => { try { return e.constructor.constructor("return typeof process")(); } catch (x) { return "threw"; } })(),
			}));`))
		Expect(res).To(BeCompleted(), "the cell collecting host errors must complete")
		for _, e := range res.ValueAny().([]any) {
			what := e.(map[string]any)["what"]
			Expect(e).To(Equal(map[string]any{"what": what, "guestFunction": true, "fnKeys": float64(0), "stackObject": false, "escape": "undefined"}),
				"the host error of the %v must be plain data: e.constructor.constructor is the guest's Function, no function members, no stack object, no way to process", what)
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
			Expect(string(res.Status)).To(BeElementOf("completed", "failed"), "%s: ended %s", code, res.Raw)
			if res.Status == "failed" {
				Expect(res.Error).NotTo(BeEmpty(), "%s: failed without an error", code)
			}
			if strings.Contains(code, "return f(n + 1)") {
				Expect(res).To(BeFailed(), "unbounded recursion cannot complete: %s", res.Raw)
			}
			Expect(r.Exec(ctx, `return 40 + 2`)).To(CompleteWith(42), "the runtime must keep serving after: %s", code)
		}
		// Running out of memory is such a trap too: CM-LIM-02 judges how the
		// cell ends; that the next exec works is this requirement's. The cell
		// holds a bounded 64 MiB, so a target without a memory limit does not
		// exhaust the host (it may complete).
		oom := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"memoryLimitBytes": 8 << 20, "timeoutMs": 5000}), Tools: tools.Standard()})
		code := `const keep = []; for (let i = 0; i < 64; i++) keep.push("x".repeat(1 << 20) + i); return keep.length;`
		res, _ := oom.RunToCompletion(ctx, code)
		Expect(string(res.Status)).To(BeElementOf("completed", "failed"), "64 MiB of live strings at memoryLimitBytes 8 MiB: ended %s", res.Raw)
		Expect(oom.Exec(ctx, `return 40 + 2`)).To(CompleteWith(42), "the runtime must keep serving after a cell holding 64 MiB at memoryLimitBytes 8 MiB (%s)", res.Status)
	}, HangIsFailure)

	It("CM-EXEC-16", "exec never exposes the shell exec recursively and guest code cannot reach the code mode exec or wait", func(ctx SpecContext) {
		shell := tools.Core("exec", "Run a shell command.", json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`),
			func(_ context.Context, in json.RawMessage) (any, error) {
				return map[string]any{"shell": json.RawMessage(in)}, nil
			})
		for _, withShell := range []bool{false, true} {
			ts := []tools.Tool{tools.Echo()}
			if withShell {
				ts = append(ts, shell)
			}
			r := NewRun(ctx, RunOptions{CodeMode: true, Tools: ts})
			Expect(r.ModelToolNames()).To(ConsistOf("exec", "wait"), "the model must see only exec and wait (shell exec in the catalog: %v)", withShell)
			for _, mt := range r.Prepared.Tools {
				Expect(mt.Description).NotTo(Equal("Run a shell command."), "the model's exec must be the code mode exec")
			}
			// Generation 2 makes each catalog tool an async global
			// (spec/protocol.md §12.13): a global exec may then be the shell
			// exec's handle, which must reach the harness shell tool.
			// The catalog is read through the dialect (listTools, call); the
			// guessed ids are the subject, so they go to 000's tools.call
			// directly, inside a try (without 000's tools each is refused).
			res, _ := r.RunToCompletion(ctx, Guest(`const out = {globals: [typeof wait, typeof globalThis.wait].join(), execGlobal: typeof globalThis.exec};
				const listed = listTools();
				const shellListed = listed.some((t) => t.name === "exec");
				out.viaGlobal = typeof globalThis.exec === "function" ? callValue(shellListed ? id("exec") : undefined, await globalThis.exec({code: "return 'recursed'"})) : null;
				out.entries = listed.filter((t) => t.name === "exec" || t.name === "wait").map((t) => t.source);
				out.calls = [];
				for (const g of ["exec", "wait", "codemode:exec", "codemode:wait", "openclaw:core:wait", "openclaw:codemode:exec"]) {
					try { const v = callValue(g, await tools.call(g, {code: "return 'recursed'", runId: "x"})); out.calls.push(JSON.stringify(v)); } catch (e) { out.calls.push("refused"); }
				}
				out.shell = shellListed ? await call("exec", {code: "return 'recursed'"}) : null;
				return out;`))
			Expect(res).To(BeCompleted(), "the probing cell must complete (shell exec in the catalog: %v)", withShell)
			v := res.ValueAny().(map[string]any)
			Expect(v["globals"]).To(Equal("undefined,undefined"), "code mode wait must not be a guest global")
			if withShell && v["execGlobal"] == "function" {
				Expect(v["viaGlobal"]).To(Equal(map[string]any{"shell": map[string]any{"code": "return 'recursed'"}}),
					"a global exec may only be the catalogued shell exec's handle (generation 2, §12.13), which calls the harness shell tool, never a nested code mode cell %s", EnvelopeNote)
			} else {
				Expect(v["execGlobal"]).To(Equal("undefined"), "code mode exec must not be a guest global (shell exec in the catalog: %v)", withShell)
			}
			for _, c := range v["calls"].([]any) {
				// A call that reached the harness shell tool echoes its input
				// ({"shell": …}); only a result without it is a nested cell.
				if s := fmt.Sprint(c); !strings.Contains(s, `"shell":`) {
					Expect(s).NotTo(ContainSubstring("recursed"), "guest code ran a nested code mode cell")
				}
			}
			Expect(r.Tools.CallsOf("wait")).To(BeEmpty(), "no nested call may reach a wait tool at the harness")
			if withShell {
				Expect(v["entries"]).To(Equal([]any{"openclaw"}), "only the shell exec is catalogued")
				Expect(v["shell"]).To(Equal(map[string]any{"shell": map[string]any{"code": "return 'recursed'"}}), "the catalogued exec is the harness shell tool, not a nested cell %s", EnvelopeNote)
			} else {
				Expect(v["entries"]).To(BeEmpty(), "without a shell exec, no exec or wait is catalogued")
				Expect(v["shell"]).To(BeNil(), "without a shell exec the cell finds no exec to call")
				Expect(r.Tools.CallsOf("exec")).To(BeEmpty(), "without a shell exec, no exec call may reach the harness")
			}
		}
	})

	It("CM-SEC-03", "guest code cannot reach the target's own exec, wait or Tool Search control tools", func(ctx SpecContext) {
		// The run declares no tool named like a control tool: whatever guest
		// code reaches under those names is the target's own. Hiding harness
		// tools merely so named is CM-CAT-03's decision and its charge.
		control := []string{"exec", "wait", "tool_search_code", "tool_search", "tool_describe", "tool_call"}
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: []tools.Tool{tools.Echo()}})
		names, _ := json.Marshal(control)
		res, _ := r.RunToCompletion(ctx, Guest(fmt.Sprintf(`const names = %s; const reached = [];
			const echoId = id("echo");
			const input = {code: "return 'recursed'", command: "return 'recursed'", runId: "no-such-run", query: "echo", id: echoId, input: {}};
			// 000's tools.* only where the cell has it (a v2 target without
			// tools-api has none); the dialect's call reaches the catalog's.
			const T = typeof tools === "object" && tools !== null ? tools : null;
			for (const n of names) {
				if (typeof globalThis[n] !== "undefined") reached.push("global " + n);
				try { const v = await call(n, input); reached.push("catalog " + n + " → " + JSON.stringify(v).slice(0, 200)); } catch (e) {}
				if (T === null) continue;
				if (typeof T[n] !== "undefined") reached.push("helper " + n);
				for (const g of new Set([n, "openclaw:core:" + n, echoId.split("echo").join(n)])) {
					try { const v = await T.call(g, input); reached.push("call " + g + " → " + JSON.stringify(v).slice(0, 200)); } catch (e) {}
					try { await T.describe(g); reached.push("describe " + g); } catch (e) {}
				}
			}
			return reached;`, names)))
		Expect(res).To(CompleteWith([]any{}), "guest code must reach none of the target's exec, wait or Tool Search control tools (as global, helper, call or describe); the value lists those it reached")
		Expect(r.Tools.Calls()).To(BeEmpty(), "the probe called no catalogued tool, yet the harness received nested calls (a recursive exec or Tool Search call reached it)")
	})

	It("CM-SEC-05", "guest code cannot read or change another run's state, snapshots, outputs or catalog", func(ctx SpecContext) {
		secret := tools.Named(protocol.SourcePlugin, "vault", "read_secret", "Read the vault secret of run A.")
		a := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"timeoutMs": 1000}), Tools: []tools.Tool{tools.Slow(), secret}})
		// The id run B guesses is the one run A's catalog gives (under v2
		// without 000's ALL_TOOLS, the dialect's id is the tool's name).
		idRes := a.Exec(ctx, Guest(`return id("read_secret");`))
		Expect(idRes).To(BeCompleted(), "run A must find its own read_secret")
		secretID := idRes.ValueAny().(string)
		ra := a.Exec(ctx, Guest(`globalThis.secretA = "A-secret"; text("A-output");
			await call("slow", {ms: 1500}); return {secret: globalThis.secretA, tampered: globalThis.tampered === true};`))
		// Suspending is CM-EXEC-17's to judge; here it is a precondition.
		Precondition("CM-EXEC-17").Expect(ra).To(BeWaiting(), "run A's cell awaiting a 1500 ms nested call under timeoutMs 1000 must be suspended while run B runs")

		for name, rc := range Sorted(map[string]protocol.RunContext{
			"another session": {},
			"the same session": {AgentID: a.Params.AgentID, SessionID: a.Params.SessionID, SessionKey: a.Params.SessionKey,
				SenderID: a.Params.SenderID, Channel: a.Params.Channel},
		}) {
			b := NewRun(ctx, RunOptions{CodeMode: true, Tools: []tools.Tool{tools.Echo()}, Context: rc})
			// Run A's id is the subject of the first call, so it goes to 000's
			// tools.call directly; the second asks run B's own catalog.
			res, steps := b.RunToCompletion(ctx, Guest(fmt.Sprintf(`globalThis.tampered = true;
				let called = "refused"; try { await tools.call(%q, {}); called = "called"; } catch (e) {}
				try { await call("read_secret", {}); called = "called by name"; } catch (e) {}
				return {secret: typeof globalThis.secretA, names: listTools().map((t) => t.name), called};`, secretID)))
			Expect(res).To(CompleteWith(map[string]any{"secret": "undefined", "names": []any{"echo"}, "called": "refused"}), "run B in %s", name)
			Expect(AllOutput(steps)).To(BeEmpty(), "run B in %s saw run A's output", name)
			stolen := b.Wait(ctx, ra.RunID)
			// Any refusal shows the isolation; its shape is CM-EXEC-05's
			// (framework.UnionOwner).
			Expect(stolen).To(BeRefused(), "run B in %s resumed run A's snapshot", name)
			Expect(string(stolen.Raw)).NotTo(ContainSubstring("A-secret"), "run B in %s got run A's global state by waiting on its runId", name)
			Expect(string(stolen.Raw)).NotTo(ContainSubstring("A-output"), "run B in %s got run A's output by waiting on its runId", name)
		}
		Expect(a.Tools.CallsOf("read_secret")).To(BeEmpty(), "another run invoked run A's tool")
		final, _ := a.Follow(ctx, ra)
		Expect(final).To(CompleteWith(map[string]any{"secret": "A-secret", "tampered": false}), "run A must resume untouched by run B")
	})

	It("CM-ACT-05", "the catalog is run-scoped: another agent's, session's or run's tools are neither visible nor callable", func(ctx SpecContext) {
		mine := tools.Named(protocol.SourcePlugin, "private", "private_tool", "Only for run A.")
		a := NewRun(ctx, RunOptions{CodeMode: true, Tools: []tools.Tool{tools.Echo(), mine}})
		res := a.Exec(ctx, Guest(`return id("private_tool");`))
		Expect(res).To(BeCompleted(), "run A must find its own private_tool")
		privateID := res.ValueAny().(string)
		for name, rc := range Sorted(map[string]protocol.RunContext{
			"another agent":  {},
			"another sender": {AgentID: a.Params.AgentID, SessionID: a.Params.SessionID, SessionKey: a.Params.SessionKey, Channel: a.Params.Channel},
			"the same identity, another run": {AgentID: a.Params.AgentID, SessionID: a.Params.SessionID, SessionKey: a.Params.SessionKey,
				SenderID: a.Params.SenderID, Channel: a.Params.Channel},
		}) {
			b := NewRun(ctx, RunOptions{CodeMode: true, Tools: []tools.Tool{tools.Echo()}, Context: rc})
			// Run A's id is the subject of the first call (000's tools.call,
			// inside a try); the second asks run B's own catalog by name.
			res, _ := b.RunToCompletion(ctx, Guest(fmt.Sprintf(`let called = "refused"; try { await tools.call(%q, {}); called = "called"; } catch (e) {}
				try { await call("private_tool", {}); called = "called by name"; } catch (e) {}
				const found = (await search("private", {limit: 50})).map((t) => t.name);
				return {names: listTools().map((t) => t.name), found, called};`, privateID)))
			Expect(res).To(CompleteWith(map[string]any{"names": []any{"echo"}, "found": []any{}, "called": "refused"}), "run B with %s", name)
		}
		Expect(a.Tools.CallsOf("private_tool")).To(BeEmpty(), "no other run may invoke run A's private_tool")
		own, _ := a.RunToCompletion(ctx, Guest(`return (await call("private_tool", {})).tool;`))
		Expect(own).To(CompleteWith("private_tool"), "run A still reaches its own tool %s", EnvelopeNote)
	})
})
