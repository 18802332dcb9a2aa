package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

var _ = Describe("codemode", "guest API", func() {
	It("CM-GUEST-01", "MCP, namespaces, text, json, yield_control, API and the profile's catalog globals (ALL_TOOLS and tools, or catalog) exist in every cell", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		want := map[string]any{"MCP": "object", "namespaces": "object", "text": "function", "json": "function", "yield_control": "function", "API": "object"}
		// 000's catalog globals with tools-api, 001's catalog under
		// javascript-only (the CM-GUEST-01 decision); a catalog global of
		// the other generation may exist or not.
		if Features().Has("tools-api") {
			want["ALL_TOOLS"], want["tools"] = true, "object"
		}
		if Features().Has("javascript-only") {
			want["catalog"] = "object"
		}
		code := globalsCell(want)
		Expect(r.Exec(ctx, code)).To(CompleteWith(want), "the first cell must see every guest global with its type")
		Expect(r.Exec(ctx, code)).To(CompleteWith(want), "a second cell must get the globals too")
	})

	It("CM-GUEST-02", "ALL_TOOLS lists every effective tool compactly, without schemas, and no denied tool", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard(), Policy: &protocol.Policy{Deny: []string{"fail"}}})
		res := r.Exec(ctx, `return ALL_TOOLS;`)
		Expect(res).To(BeCompleted(), "a cell returning ALL_TOOLS must complete")
		var entries []map[string]any
		Expect(json.Unmarshal(res.Value, &entries)).To(Succeed(), "ALL_TOOLS must be an array of objects: %s", res.Value)
		names := []string{}
		for _, e := range entries {
			for k := range Sorted(e) {
				Expect(k).To(BeElementOf("id", "name", "label", "description", "source", "sourceName"), "ALL_TOOLS entry has non-compact key %q", k)
			}
			Expect(e).To(HaveKeyWithValue("id", Not(BeEmpty())), "every ALL_TOOLS entry has a non-empty id: %v", e)
			Expect(e).To(HaveKeyWithValue("source", BeElementOf("openclaw", "plugin", "client")), "every ALL_TOOLS entry has source openclaw, plugin or client (MCP entries are not guest-visible): %v", e)
			names = append(names, e["name"].(string))
		}
		Expect(names).To(ConsistOf("echo", "add", "slow", "big"), "ALL_TOOLS lists every effective tool and not the denied fail")
	})

	It("CM-GUEST-03", "tools.search ranks by relevance and honours limit defaults and caps", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: Enabled(map[string]any{"searchDefaultLimit": 3, "maxSearchLimit": 10}), Tools: append(tools.Standard(), fillers(20)...)})
		res, _ := r.RunToCompletion(ctx, `const a = await tools.search("add two numbers"); const w = await tools.search("widget"); const w2 = await tools.search("widget", {limit: 7}); const w3 = await tools.search("widget", {limit: 99});
			return {first: a[0].name, keys: Object.keys(a[0]).sort(), n: w.length, n2: w2.length, n3: w3.length};`)
		Expect(res).To(BeCompleted(), "tools.search must resolve")
		v := res.ValueAny().(map[string]any)
		// A compact entry: id, name, description, source, and optionally
		// label and sourceName (000 [API runtime guest]), never the schema.
		Expect(v["keys"]).To(ContainElements("description", "id", "name", "source"), "compact entry keys")
		Expect(v["keys"]).To(HaveEach(BeElementOf("description", "id", "name", "source", "label", "sourceName")), "compact entries carry no schema")
		v["keys"] = nil
		Expect(v).To(Equal(map[string]any{"first": "add", "keys": nil, "n": float64(3), "n2": float64(7), "n3": float64(10)}), "ranking and limits: %s", res)
	})

	It("CM-GUEST-04", "tools.describe returns the entry plus its full parameters schema", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		res, _ := r.RunToCompletion(ctx, Guest(`const d = await tools.describe(id("add")); return d;`))
		Expect(res).To(BeCompleted(), "tools.describe of a known id must resolve")
		var d map[string]any
		Expect(json.Unmarshal(res.Value, &d)).To(Succeed(), "tools.describe must resolve to an object: %s", res.Value)
		var want any
		Expect(json.Unmarshal(tools.Add().Spec.Parameters, &want)).To(Succeed(), "the add tool's declared parameters must be JSON")
		Expect(d).To(HaveKeyWithValue("name", "add"), "tools.describe must return the entry's name")
		Expect(d).To(HaveKeyWithValue("parameters", want), "tools.describe must return the tool's declared parameters schema unchanged")
	})

	It("CM-GUEST-05", "tools.call runs the tool; unknown and denied ids reject with guidance", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard(), Policy: &protocol.Policy{Deny: []string{"fail"}}})
		// The one spec that judges what tools.call resolves to: the raw value,
		// not through callValue (see framework.Guest and the CM-GUEST-05 decision).
		res, _ := r.RunToCompletion(ctx, Guest(`return await tools.call(id("add"), {a: 2, b: 3});`))
		Expect(res).To(CompleteWith(map[string]any{"sum": 5}), "tools.call must resolve with the tool's own result value, not an envelope around it (CM-GUEST-05 decision)")
		res, _ = r.RunToCompletion(ctx, `const guesses = ["openclaw:core:fail", "fail", "openclaw:core:nope"]; const out = [];
			for (const g of guesses) { try { await tools.call(g, {}); out.push("called " + g); } catch (e) { out.push(String(e && e.message)); } }
			return out;`)
		Expect(res).To(BeCompleted(), "guessing ids must not fail the cell: every rejection is catchable")
		var msgs []string
		Expect(json.Unmarshal(res.Value, &msgs)).To(Succeed(), "the cell must return the rejection messages as strings: %s", res.Value)
		for _, m := range msgs {
			Expect(m).NotTo(HavePrefix("called"), "a denied or unknown id was callable")
			Expect(m).To(ContainSubstring("search"), "rejection must tell the model how to find tools: %q", m)
		}
		Expect(r.Tools.CallsOf("fail")).To(BeEmpty(), "the denied tool reached the harness")
		// A near miss gets a suggestion naming the real id.
		res, _ = r.RunToCompletion(ctx, Guest(`const want = id("echo"); try { await tools.call(want.slice(0, -1), {}); return "called"; } catch (e) { return {msg: String(e.message), want}; }`))
		Expect(res).To(BeCompleted(), "a near-miss call must reject catchably")
		v := res.ValueAny().(map[string]any)
		Expect(v["msg"]).To(ContainSubstring(v["want"].(string)), "an unknown id close to a real one must suggest it")
	})

	It("CM-GUEST-05", "a denied tool stays unreachable when guest code tampers with the runtime's globals", func(ctx SpecContext) {
		ts := tools.Standard()
		open := NewRun(ctx, RunOptions{CodeMode: true, Tools: ts})
		res := open.Exec(ctx, `return ALL_TOOLS.find((t) => t.name === "fail").id;`)
		Expect(res).To(BeCompleted(), "tampering with the runtime's globals must not crash the cell")
		failID := res.ValueAny().(string)
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: ts, Policy: &protocol.Policy{Deny: []string{"fail"}}})
		// Offer a forged catalog holding the denied id to every function
		// reachable from globalThis (boot/init/configure hooks of any runtime),
		// then try the id through every route.
		res, _ = r.RunToCompletion(ctx, fmt.Sprintf(`const denied = %q;
			const forged = {catalog: [{id: denied, name: "fail", description: "", source: "openclaw"}], tools: [{id: denied, name: "fail"}], searchDefaultLimit: 8, maxSearchLimit: 50, maxOutputBytes: 65536};
			for (const k of Object.getOwnPropertyNames(globalThis)) {
				let v; try { v = globalThis[k]; } catch (e) { continue; }
				if (!v || (typeof v !== "object" && typeof v !== "function")) continue;
				for (const m of Object.getOwnPropertyNames(v)) {
					let f; try { f = v[m]; } catch (e) { continue; }
					if (typeof f === "function" && /boot|init|config|catalog|register/i.test(m)) { try { f.call(v, forged); } catch (e) {} }
				}
			}
			let reached = 0;
			for (const route of [() => tools.call(denied, {message: "x"}), () => tools.fail && tools.fail({message: "x"})]) { try { await route(); reached++; } catch (e) {} }
			return reached;`, failID))
		Expect(res.Status).NotTo(Equal("waiting"), "the tampering cell must end, not wait for a denied call: %s", res.Raw)
		Expect(r.Tools.CallsOf("fail")).To(BeEmpty(), "a denied tool was invoked after the guest tampered with the runtime: %s", res.Raw)
	})

	It("CM-GUEST-07", "text and json append output in call order and the return value becomes value", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		res := r.Exec(ctx, `text("a"); json({b: [1, 2]}); text("c"); json("d"); return {final: true};`)
		Expect(res).To(CompleteWith(map[string]any{"final": true}), "text and json calls must not change the cell's return value")
		Expect(res.Output).To(HaveLen(4), "four output calls must give four output items in call order: %v", res.Output)
		Expect(res.Output[0]).To(Equal(result.TextOutput("a")), "text(\"a\") must append {type: text, text: a} first")
		Expect(res.Output[1].Type).To(Equal("json"), "json({b: [1, 2]}) must append an item of type json second")
		Expect(res.Output[1].Value).To(MatchJSON(`{"b":[1,2]}`), "json({b: [1, 2]}) must append its value as JSON")
		Expect(res.Output[2]).To(Equal(result.TextOutput("c")), "text(\"c\") must append {type: text, text: c} third")
		Expect(res.Output[3].Value).To(MatchJSON(`"d"`), "json(\"d\") must append the JSON string \"d\" fourth")
	})

	It("CM-GUEST-08", "non-serialisable values become plain strings or a clean error, never a host exception or a corrupted value", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		// Each case keeps a serialisable sibling (ok: 1) that must survive intact
		// when the cell completes.
		cases := map[string]string{
			"function":        `return {ok: 1, f: function () { return 1; }};`,
			"symbol":          `return {ok: 1, s: Symbol("x")};`,
			"undefined":       `return {ok: 1, u: undefined};`,
			"bigint":          `return {ok: 1, b: 10n};`,
			"cycle":           `const a = {ok: 1}; a.self = a; return a;`,
			"throwing getter": `return {ok: 1, get x() { throw new Error("getter boom"); }};`,
			"throwing toJSON": `return {ok: 1, inner: {toJSON() { throw new Error("toJSON boom"); }}};`,
			"binary":          `return {ok: 1, bin: new Uint8Array([1, 2, 3])};`,
			"json() cycle":    `const a = {ok: 1}; a.self = a; json(a); return {ok: 1};`,
			"json() bigint":   `json({ok: 1, b: 5n}); return {ok: 1};`,
			"call input":      Guest("let r; try { r = await call(\"echo\", {ok: 1, f() {}, b: 2n}); } catch (err) { r = {ok: 1, rejected: String(err.message)}; } return r;"),
		}
		for name, code := range Sorted(cases) {
			res, _ := r.RunToCompletion(ctx, code)
			switch res.Status {
			case "completed":
				v, isMap := res.ValueAny().(map[string]any)
				Expect(isMap).To(BeTrue(), "%s: completed with a corrupted value: %s", name, res.Raw)
				Expect(v).To(HaveKeyWithValue("ok", BeEquivalentTo(1)), "%s: the serialisable part was corrupted: %s %s", name, res.Raw, EnvelopeNote)
				for k, x := range Sorted(v) {
					if k != "ok" && x != nil {
						Expect(x).To(Or(BeAssignableToTypeOf(""), BeAssignableToTypeOf(map[string]any{}), BeAssignableToTypeOf([]any{}), BeAssignableToTypeOf(0.0), BeAssignableToTypeOf(true)),
							"%s: %s is not plain JSON", name, k)
					}
				}
			case "failed":
				Expect(res.Error).NotTo(BeEmpty(), "%s: failed without an error message", name)
				noHostFrames(res.Error)
			default:
				Expect(res).To(BeCompleted(), "%s: a non-serialisable value must complete or fail cleanly", name)
			}
		}
		Expect(r.Exec(ctx, `return 1 + 1;`)).To(CompleteWith(2), "the run must keep working")
	})

	It("CM-GUEST-09", "yield_control suspends the cell with reason yield and wait continues it", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		res := r.Exec(ctx, `let n = 1; text("before"); await yield_control("checkpoint"); n++; text("after"); return n;`)
		Expect(res).To(BeWaiting(), "yield_control must suspend the cell")
		Expect(string(res.Reason)).To(Equal("yield"), "a yield_control suspension must have reason yield: %s", res.Raw)
		Expect(res.Output).To(ContainElement(result.TextOutput("before")), "output before yield_control must be in the waiting result")
		res = r.Wait(ctx, res.RunID)
		Expect(res).To(CompleteWith(2), "the suspended cell keeps its state across wait")
		Expect(res.Output).To(ContainElement(result.TextOutput("after")), "output after the resume must be in the wait result")
	})

	It("CM-GUEST-10", "tool errors are catchable plain data; an uncaught one fails the cell and the run continues", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		res, _ := r.RunToCompletion(ctx, Guest(`try { await call("fail", {message: "tool said no"}); return "not thrown"; } catch (e) {
			const fnProps = Object.keys(e).filter((k) => typeof e[k] === "function");
			return {message: String(e.message), fnProps, stackIsObject: typeof e.stack === "object" && e.stack !== null,
				guestFunction: e.constructor.constructor === Function, roundTrips: JSON.stringify(JSON.parse(JSON.stringify(e))) === JSON.stringify(e)}; }`))
		Expect(res).To(BeCompleted(), "catching a tool error must let the cell complete")
		v := res.ValueAny().(map[string]any)
		Expect(v).To(HaveKeyWithValue("message", ContainSubstring("tool said no")), "the caught tool error's message must carry the tool's message")
		Expect(v).To(HaveKeyWithValue("fnProps", BeEmpty()), "the caught tool error must have no function-valued properties")
		Expect(v).To(HaveKeyWithValue("stackIsObject", false), "the caught tool error's stack must not be an object (a host stack)")
		Expect(v).To(HaveKeyWithValue("guestFunction", true), "e.constructor.constructor must be the guest's own Function, not the host's")
		Expect(v).To(HaveKeyWithValue("roundTrips", true), "the caught tool error must be plain data that survives JSON.stringify and JSON.parse unchanged")
		res, _ = r.RunToCompletion(ctx, Guest(`try { await call("fail", {message: "with data"}); } catch (e) { return e.data; }`))
		Expect(res).To(CompleteWith(map[string]any{"reason": "requested"}), "the tool error's data must reach the guest as plain data")
		res, _ = r.RunToCompletion(ctx, Guest(`await call("fail", {message: "uncaught"}); return 1;`))
		// The sources name no code for it: nested_tool_failed is CM-EXEC-19's (SHOULD).
		Expect(res).To(BeFailed(), "an uncaught tool error must fail the cell")
		Expect(res.Error).To(ContainSubstring("uncaught"), "the failed cell's error must carry the tool's message")
		res, _ = r.RunToCompletion(ctx, Guest(`return (await call("add", {a: 1, b: 1})).sum;`))
		Expect(res).To(CompleteWith(2), "the run must keep working after a failed cell %s", EnvelopeNote)
	})

	It("CM-GUEST-11", "values crossing the bridge are fresh copies", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: tools.Standard()})
		res, _ := r.RunToCompletion(ctx, Guest(`const input = {message: "original"}; const p = dispatch("echo", input); input.message = "mutated";
			const a = callValue(id("echo"), await p); a.message = "changed"; const b = (await call("echo", {message: "original"}));
			const t1 = listTools()[0]; const d1 = await describe(t1.name); d1.parameters.injected = true; const d2 = await describe(t1.name);
			return [a.message, b.message, d2.parameters.injected === undefined];`))
		Expect(res).To(CompleteWith([]any{"changed", "original", true}), "mutations inside the guest must not change the tool's input or a later call's result: [result after mutation, later result, describe unchanged] %s", EnvelopeNote)
		Expect(r.Tools.CallsOf("echo")[0].Input).To(MatchJSON(`{"message":"original"}`), "the tool received an input mutated after the call")
	})

	It("CM-GUEST-11", "tool results are plain JSON data: a __proto__ key stays an own property", func(ctx SpecContext) {
		proto := tools.Core("proto", "Return an object with a __proto__ key.", nil, func(ctx context.Context, in json.RawMessage) (any, error) {
			return json.RawMessage(`{"__proto__": {"isAdmin": true}, "a": 1}`), nil
		})
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: []tools.Tool{proto}})
		res, _ := r.RunToCompletion(ctx, Guest(`const v = (await call("proto", {}));
			return {keys: Object.keys(v).sort(), inherited: v.isAdmin === true, plainProto: Object.getPrototypeOf(v) === Object.prototype};`))
		Expect(res).To(CompleteWith(map[string]any{"keys": []any{"__proto__", "a"}, "inherited": false, "plainProto": true}), "a __proto__ key in a tool result must stay an own property and set no prototype %s", EnvelopeNote)
	})
})

// globalsCell is a cell returning, for each key of want, whether ALL_TOOLS
// is an array or the typeof of the other globals (CM-GUEST-01).
func globalsCell(want map[string]any) string {
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": typeof " + k
		if k == "ALL_TOOLS" {
			parts[i] = `ALL_TOOLS: typeof ALL_TOOLS !== "undefined" && Array.isArray(ALL_TOOLS)`
		}
	}
	return "return {" + strings.Join(parts, ", ") + "};"
}
