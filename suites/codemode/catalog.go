package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/gomega"
)

// controlTools are the names the catalog must omit (CM-CAT-03); exec is
// tested separately because a core exec is the shell tool (CM-CAT-04).
var controlTools = []string{"wait", "tool_search_code", "tool_search", "tool_describe", "tool_call"}

var _ = Describe("codemode", "hidden catalog", func() {
	It("CM-CAT-01", "the catalog holds core, bundled-plugin, external-plugin and client tools with their source", func(ctx SpecContext) {
		ts := mixedSources()
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: ts})
		res := r.Exec(ctx, Guest(`return listTools().map((t) => ({name: t.name, source: t.source, sourceName: t.sourceName || null}));`))
		Expect(res).To(BeCompleted(), "a cell listing the catalog's tools with their sources must complete")
		var got []map[string]any
		Expect(json.Unmarshal(res.Value, &got)).To(Succeed(), "the cell must return an array of entries: %s", res.Value)
		want := []map[string]any{
			{"name": "echo", "source": "openclaw", "sourceName": nil},
			{"name": "browser_request", "source": "plugin", "sourceName": "browser"},
			{"name": "forecast", "source": "plugin", "sourceName": "acme-weather"},
			{"name": "select_file", "source": "client", "sourceName": "app"},
		}
		Expect(got).To(ConsistOf(want), "catalog entries (listTools) %v", got)
		// Every source is callable through the normal executor, with its own name.
		res, _ = r.RunToCompletion(ctx, Guest(`const out = []; for (const n of ["echo", "browser_request", "forecast", "select_file"]) out.push(await call(n, {q: n})); return out.length;`))
		Expect(res).To(CompleteWith(4), "a tool of every source must be callable")
		for _, t := range ts {
			calls := r.Tools.CallsOf(t.Spec.Name)
			Expect(calls).To(HaveLen(1), "tool %s was not invoked exactly once", t.Spec.Name)
			Expect(calls[0].Source).To(Equal(t.Spec.Source), "tool %s must be invoked with its declared source", t.Spec.Name)
			Expect(calls[0].Owner).To(Equal(t.Spec.Owner), "tool %s must be invoked with its declared owner", t.Spec.Name)
		}
		// MCP tools are catalogued too, though the guest does not see them
		// (CM-CAT-05): only telemetry can show it.
		if Features().Has("telemetry") {
			withMCP := NewRun(ctx, RunOptions{CodeMode: true, Tools: append(mixedSources(), tools.Named(protocol.SourceMCP, "github", "create_issue", "Create an issue."))})
			res := withMCP.Exec(ctx, Guest(`return listTools().length;`))
			Expect(res).To(CompleteWith(4), "MCP entries are not in the guest's catalog (listTools)")
			Expect(res.Telemetry).NotTo(BeNil(), "a completed result must carry telemetry under feature telemetry: %s", res.Raw)
			Expect(res.Telemetry.CatalogSize).To(Equal(5), "the MCP tool must be in the run catalog")
			Expect(res.Telemetry.CatalogSources).To(Equal(map[string]int{"openclaw": 1, "plugin": 2, "client": 1, "mcp": 1}), "the run catalog must count one MCP tool beside the guest-visible ones")
		}
	})

	It("CM-CAT-02", "catalog ids are unique and stable across search, describe, call and every cell of the run", func(ctx SpecContext) {
		ts := append(tools.Standard(), mixedSources()[1:]...)
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: ts})
		if !guestSeesIDs(ctx, r) {
			// 001's catalog handles show the guest no catalog id (spec/protocol.md
			// §12.13): the ids are those the target's tool.invoke names, each
			// tool called through the dialect in two cells.
			first, again := invokedIDs(ctx, r, ts), invokedIDs(ctx, r, ts)
			seen := map[string]string{}
			for n, v := range Sorted(first) {
				Expect(v).NotTo(BeEmpty(), "tool.invoke of %s must name its catalog id", n)
				Expect(seen).NotTo(HaveKey(v), "id %q is used by %s and %s", v, seen[v], n)
				seen[v] = n
			}
			Expect(again).To(Equal(first), "the catalog ids tool.invoke names changed between cells of the run")
			return
		}
		first := catalogIDs(ctx, r)
		Expect(first).To(HaveLen(len(ts)), "every declared tool must have a catalog id: %v", first)
		seen := map[string]string{}
		for k, v := range Sorted(first) {
			Expect(seen).NotTo(HaveKey(v), "id %q is used by %s and %s", v, seen[v], k)
			seen[v] = k
		}
		res, _ := r.RunToCompletion(ctx, `const m = {};
			for (const t of await tools.search("", {limit: 50})) m[t.name] = [t.id];
			for (const t of ALL_TOOLS) { const d = await tools.describe(t.id); m[t.name].push(d.id); }
			await tools.call(ALL_TOOLS.find((t) => t.name === "slow").id, {ms: 10});
			for (const t of await tools.search("", {limit: 50})) m[t.name].push(t.id);
			await tools.call(ALL_TOOLS.find((t) => t.name === "echo").id, {});
			return m;`)
		Expect(res).To(BeCompleted(), "a cell collecting ids from search, describe and search after nested calls must complete")
		var m map[string][]string
		Expect(json.Unmarshal(res.Value, &m)).To(Succeed(), "the cell must return ids per tool name: %s", res.Value)
		byName := map[string]string{}
		for k, v := range Sorted(first) {
			name := nameOf(k)
			byName[name] = v
			Expect(m[name]).To(Equal([]string{v, v, v}), "tool %s: id in an earlier cell, then from search, describe and search after a nested call", name)
		}
		Expect(catalogIDs(ctx, r)).To(Equal(first), "ids changed between cells")
		Expect(r.Tools.CallsOf("echo")).To(HaveLen(1), "the cell calls echo exactly once")
		Expect(r.Tools.CallsOf("echo")[0].CatalogID).To(Equal(byName["echo"]), "tool.invoke names the same catalog id the guest used")
	})

	It("CM-CAT-03", "exec, wait and the Tool Search control tools are hidden from the model and the catalog", func(ctx SpecContext) {
		var ts []tools.Tool
		for _, n := range controlTools {
			ts = append(ts, tools.Named(protocol.SourceOpenClaw, "core", n, "control tool "+n))
		}
		for _, n := range controlTools {
			ts = append(ts, tools.Named(protocol.SourcePlugin, "toolsearch", n, "control tool "+n+" from a plugin"))
		}
		ts = append(ts, tools.Named(protocol.SourcePlugin, "shell", "exec", "A plugin's own exec tool."), tools.Echo())
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: ts})
		Expect(r.ModelToolNames()).To(ConsistOf("exec", "wait"), "only the code mode tools reach the model")
		for _, mt := range r.Prepared.Tools {
			Expect(mt.Description).NotTo(HavePrefix("control tool"), "a declared control tool reached the model surface")
			Expect(mt.Description).NotTo(Equal("A plugin's own exec tool."), "a declared exec tool reached the model surface")
		}
		Expect(catalogNames(ctx, r)).To(ConsistOf("echo"), "the catalog must hold only echo, no control tool")
		guesses := []string{}
		for _, n := range append(controlTools, "exec") {
			guesses = append(guesses, "openclaw:core:"+n, "plugin:shell:"+n, "plugin:toolsearch:"+n, n)
		}
		g, _ := json.Marshal(guesses)
		// The guessed ids are the subject: 000's tools.call, inside a try.
		res, _ := r.RunToCompletion(ctx, Guest(fmt.Sprintf(`const found = (await search("tool search describe call wait exec control echo", {limit: 50})).map((t) => t.name);
			let reached = 0; for (const g of %s) { try { await tools.call(g, {}); reached++; } catch (e) {} }
			return {found, reached};`, g)))
		Expect(res).To(CompleteWith(map[string]any{"found": []any{"echo"}, "reached": 0}), "search must find only echo and no guessed control-tool id may be callable")
		for _, n := range append(controlTools, "exec") {
			Expect(r.Tools.CallsOf(n)).To(BeEmpty(), "control tool %s was invoked", n)
		}
	})

	It("CM-CAT-04", "the shell exec is hidden from the model but callable by catalog id when policy allows", func(ctx SpecContext) {
		shell := tools.Core("exec", "Run a shell command.", json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`),
			func(_ context.Context, in json.RawMessage) (any, error) {
				return map[string]any{"ran": json.RawMessage(in)}, nil
			})
		ts := []tools.Tool{shell, tools.Echo()}
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: ts})
		Expect(r.ModelToolNames()).To(ConsistOf("exec", "wait"), "the shell exec must not reach the model: only the code mode exec and wait")
		for _, mt := range r.Prepared.Tools {
			Expect(mt.Description).NotTo(Equal("Run a shell command."), "the shell exec reached the model surface")
		}
		// The shell exec is reached through the guest dialect (000's catalog id
		// under v1, its catalog handle under v2); the tools.exec helper is
		// 000's and is looked for only where the cell has 000's tools.
		res, _ := r.RunToCompletion(ctx, Guest(`const e = listTools().find((t) => t.name === "exec");
			if (!e) return "absent";
			const viaId = await call("exec", {command: "echo hi"});
			const helper = typeof tools !== "undefined" && tools !== null && typeof tools.exec === "function";
			const viaHelper = helper ? callValue(id("exec"), await tools.exec({command: "echo helper"})) : null;
			return {source: e.source, viaId, viaHelper};`))
		// 000 installs tools.exec "solo se" (only if) the name is unambiguous:
		// that forbids a helper for an ambiguous name and requires none here.
		// A helper that exists must call the shell exec.
		Expect(res).To(BeCompleted(), "the cell calling the shell exec by id must complete: %s", res)
		v, _ := res.ValueAny().(map[string]any)
		calls := 1
		if v["viaHelper"] != nil {
			calls = 2
			Expect(v).To(HaveKeyWithValue("viaHelper", map[string]any{"ran": map[string]any{"command": "echo helper"}}), "a tools.exec helper, when there is one, must call the shell exec %s: %s", EnvelopeNote, res.Value)
		}
		Expect(v).To(Equal(map[string]any{"source": "openclaw",
			"viaId":     map[string]any{"ran": map[string]any{"command": "echo hi"}},
			"viaHelper": v["viaHelper"]}), "the shell exec must be in the catalog as an openclaw tool and callable by id %s", EnvelopeNote)
		Expect(r.Tools.CallsOf("exec")).To(HaveLen(calls), "the shell exec must be invoked once by id and once by a helper if there is one")

		denied := NewRun(ctx, RunOptions{CodeMode: true, Tools: ts, Policy: &protocol.Policy{Deny: []string{"exec"}}})
		Expect(catalogNames(ctx, denied)).To(ConsistOf("echo"), "a denied shell exec must leave the catalog")
		// The guessed id is the subject (000's tools.call, where the cell has
		// it), then the dialect's call by name, then the tools.exec helper.
		res, _ = denied.RunToCompletion(ctx, Guest(`const has = typeof tools !== "undefined" && tools !== null;
			if (has) { try { await tools.call("openclaw:core:exec", {command: "id"}); return "called by id"; } catch (e) {} }
			try { await call("exec", {command: "id"}); return "called by name"; } catch (e) {}
			return has ? typeof tools.exec : "undefined";`))
		Expect(res).To(CompleteWith("undefined"), "a denied shell exec is neither callable nor a helper")
		Expect(denied.Tools.CallsOf("exec")).To(BeEmpty(), "a denied shell exec must never be invoked")
	})

	It("CM-CAT-06", "tools named like prototype members neither crash the catalog nor pollute guest objects", func(ctx SpecContext) {
		names := []string{"constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "__defineGetter__", "then", "toJSON"}
		var ts []tools.Tool
		for _, n := range names {
			ts = append(ts, tools.Named(protocol.SourcePlugin, "proto", n, "Tool named "+n))
		}
		ts = append(ts, tools.Echo())
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: ts})
		Expect(r.ModelToolNames()).To(ConsistOf("exec", "wait"), "prototype-named tools must go behind exec like any other")
		n, _ := json.Marshal(names)
		res, _ := r.RunToCompletion(ctx, Guest(fmt.Sprintf(`const names = %s; const results = [];
			const listed = listTools();
			for (const n of names) { const t = listed.find((t) => t.name === n); results.push([n, t ? (await call(n, {})).tool : "missing"]); }
			const o = {};
			// The catalog API the cell has: 000's tools (its search, describe and
			// call), else 001's catalog (all and search), the object a
			// prototype-named tool could have broken.
			const api = typeof tools !== "undefined" && tools !== null ? [tools.search, tools.describe, tools.call] : [catalog.all, catalog.search];
			return {
				results,
				listed: listed.length,
				objToString: o.toString(), ownKeys: Object.getOwnPropertyNames(Object.prototype).filter((k) => k !== "__proto__" && typeof Object.prototype[k] !== "function").length + ("tool" in o ? 1 : 0),
				hasOwn: o.hasOwnProperty("x"), ctor: o.constructor === Object, proto: Object.getPrototypeOf(o) === Object.prototype,
				api: api.every((f) => typeof f === "function"),
				echo: (await call("echo", {ok: true})).ok,
			};`, n)))
		want := map[string]any{"listed": float64(len(ts)), "objToString": "[object Object]", "ownKeys": float64(0), "hasOwn": false, "ctor": true, "proto": true, "api": true, "echo": true}
		var results [][]any
		for _, n := range names {
			results = append(results, []any{n, n})
		}
		wantAll := map[string]any{"results": toAny(results)}
		for k, v := range Sorted(want) {
			wantAll[k] = v
		}
		Expect(res).To(BeCompleted(), "a cell calling every prototype-named tool must complete")
		if d := cmp.Diff(wantAll, res.ValueAny()); d != "" {
			Expect(d).To(BeEmpty(), "prototype-named tools (-want +got) %s", EnvelopeNote)
		}
		// Language hooks must not turn into tool calls: awaiting or returning
		// tools, or serialising it, calls nothing.
		before := len(r.Tools.Calls())
		// 000's tools, else 001's catalog and its handles (catalog.all()).
		res, _ = r.RunToCompletion(ctx, `const api = typeof tools !== "undefined" && tools !== null ? tools : catalog;
			const t = await Promise.resolve(api); json({t: api}); JSON.stringify(api); String(Object.keys(api));
			if (typeof catalog !== "undefined" && api === catalog) { const hs = await catalog.all(); JSON.stringify(hs); String(hs); }
			return {same: t === api};`)
		Expect(res).To(CompleteWith(map[string]any{"same": true}), "the catalog API object (tools, or catalog) must not be a thenable")
		Expect(r.Tools.Calls()).To(HaveLen(before), "using the catalog API as a value invoked a tool (then/toJSON/toString helpers)")
	})

	It("CM-CAT-07", "ids follow <source>:<owner>:<tool-name> and are the same for equivalent tool sets", func(ctx SpecContext) {
		ts := append(tools.Standard(), mixedSources()[1:]...)
		ra := NewRun(ctx, RunOptions{CodeMode: true, Tools: ts})
		if !guestSeesIDs(ctx, ra) {
			// 001's catalog handles show the guest no catalog id (spec/protocol.md
			// §12.13): the ids judged are those the target's tool.invoke names.
			a := invokedIDs(ctx, ra, ts)
			for _, t := range ts {
				owner := t.Spec.Owner
				if owner == "" {
					owner = "core"
				}
				Expect(a[t.Spec.Name]).To(Equal(t.Spec.Source+":"+owner+":"+t.Spec.Name), "id of %s/%s/%s", t.Spec.Source, t.Spec.Owner, t.Spec.Name)
			}
			reversed := make([]tools.Tool, len(ts))
			for i, t := range ts {
				reversed[len(ts)-1-i] = t
			}
			Expect(invokedIDs(ctx, NewRun(ctx, RunOptions{CodeMode: true, Tools: reversed}), reversed)).To(Equal(a), "the same tools declared in another order must get the same ids")
			return
		}
		a := catalogIDs(ctx, ra)
		for k, v := range Sorted(a) {
			name := nameOf(k)
			src := regexp.MustCompile(`/.*$`).ReplaceAllString(k, "")
			owner := regexp.MustCompile(`^[^/]*/([^/]*)/.*$`).ReplaceAllString(k, "$1")
			if owner == "" {
				owner = "core"
			}
			Expect(v).To(Equal(src+":"+owner+":"+name), "id of %s", k)
		}
		reversed := make([]tools.Tool, len(ts))
		for i, t := range ts {
			reversed[len(ts)-1-i] = t
		}
		b := catalogIDs(ctx, NewRun(ctx, RunOptions{CodeMode: true, Tools: reversed}))
		Expect(b).To(Equal(a), "the same tools declared in another order must get the same ids")
	})
})

var _ = Describe("codemode", "guest helpers", func() {
	It("CM-GUEST-06", "helpers exist only for unambiguous safe names and never shadow search, describe or call", func(ctx SpecContext) {
		ts := []tools.Tool{
			tools.Named(protocol.SourcePlugin, "mail-a", "lookup", "Look up a contact (plugin a)."),
			tools.Named(protocol.SourcePlugin, "mail-b", "lookup", "Look up a contact (plugin b)."),
			tools.Named(protocol.SourcePlugin, "mail-c", "lookup", "Look up a contact (plugin c)."),
			tools.Named(protocol.SourcePlugin, "traps", "search", "A tool named search."),
			tools.Named(protocol.SourcePlugin, "traps", "describe", "A tool named describe."),
			tools.Named(protocol.SourcePlugin, "traps", "call", "A tool named call."),
			tools.Named(protocol.SourcePlugin, "weather", "get_weather", "Weather for a city."),
			// Two names that differ and may normalise alike. 000 [Nomi degli
			// strumenti] omits the helper when they do, but names no rule
			// (protocol.md §12.4), so only what holds under any rule is
			// checked: both are reachable by id, and a tools.list_calendars
			// helper, if there is one, calls list_calendars, never
			// list-calendars.
			tools.Named(protocol.SourcePlugin, "cal-a", "list-calendars", "List calendars (plugin a)."),
			tools.Named(protocol.SourcePlugin, "cal-b", "list_calendars", "List calendars (plugin b)."),
		}
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: ts})
		res, _ := r.RunToCompletion(ctx, Guest(`const cals = ALL_TOOLS.filter((t) => t.name === "list-calendars" || t.name === "list_calendars");
			const reached = [];
			for (const t of cals) reached.push(callValue(t.id, await tools.call(t.id, {})).tool);
			const helper = typeof tools.list_calendars === "function";
			if (helper) await tools.list_calendars({});
			return {helper, reached: reached.sort()};`))
		Expect(res).To(BeCompleted(), "the cell calling list-calendars and list_calendars by id must complete: %s", res)
		v, _ := res.ValueAny().(map[string]any)
		Expect(v).To(HaveKeyWithValue("reached", []any{"list-calendars", "list_calendars"}), "list-calendars and list_calendars must both be reached through tools.call(id) %s: %s", EnvelopeNote, res.Value)
		byHelper := 0
		if v["helper"] == true {
			byHelper = 1
		}
		Expect(r.Tools.CallsOf("list-calendars")).To(HaveLen(1), "list-calendars must be invoked once, by id: a tools.list_calendars helper must not call it")
		Expect(r.Tools.CallsOf("list_calendars")).To(HaveLen(1+byHelper), "list_calendars must be invoked once by id and once by its tools.list_calendars helper if there is one")
		res, _ = r.RunToCompletion(ctx, Guest(`const lookups = ALL_TOOLS.filter((t) => t.name === "lookup");
			const viaCall = [];
			for (const t of lookups) viaCall.push(callValue(t.id, await tools.call(t.id, {})).tool);
			const s = await tools.search("weather");
			const d = await tools.describe(ALL_TOOLS.find((t) => t.name === "get_weather").id);
			return {
				lookupHelper: typeof tools.lookup, lookups: lookups.length, viaCall,
				searchIsApi: Array.isArray(s) && s.some((t) => t.name === "get_weather"),
				describeIsApi: d.name === "get_weather" && typeof d.parameters === "object",
				helper: callValue(id("get_weather"), await tools.get_weather({city: "Oslo"})).tool,
			};`))
		Expect(res).To(CompleteWith(map[string]any{"lookupHelper": "undefined", "lookups": 3, "viaCall": []any{"lookup", "lookup", "lookup"},
			"searchIsApi": true, "describeIsApi": true, "helper": "get_weather"}), "no helper for the three colliding lookup tools, each reachable by id; search and describe stay the API; get_weather has a helper %s", EnvelopeNote)
		owners := []string{}
		for _, c := range r.Tools.CallsOf("lookup") {
			owners = append(owners, c.Owner)
		}
		Expect(owners).To(ConsistOf("mail-a", "mail-b", "mail-c"), "tools.call(id) must reach each colliding tool")
		Expect(r.Tools.CallsOf("search")).To(BeEmpty(), "tools.search ran the tool named search")
		Expect(r.Tools.CallsOf("describe")).To(BeEmpty(), "tools.describe ran the tool named describe")
		res, _ = r.RunToCompletion(ctx, Guest(`return callValue(id("call"), await tools.call(id("call"), {})).tool;`))
		Expect(res).To(CompleteWith("call"), "the tool named call is still reachable by id %s", EnvelopeNote)
	})
})

// nameOf is the tool name of a catalogIDs key (source/sourceName/name).
func nameOf(key string) string { return regexp.MustCompile(`^[^/]*/[^/]*/`).ReplaceAllString(key, "") }

func toAny(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// guestSeesIDs reports whether r's cells have 000's ALL_TOOLS, whose
// entries carry the catalog ids (feature tools-api; 001's catalog handles
// carry none, spec/protocol.md §12.13).
func guestSeesIDs(ctx SpecContext, r *Run) bool {
	res := r.Exec(ctx, `return typeof ALL_TOOLS !== "undefined" && Array.isArray(ALL_TOOLS);`)
	Expect(res).To(BeCompleted(), "a cell asking whether ALL_TOOLS exists must complete")
	return res.ValueAny() == true
}

// invokedIDs calls every tool of ts once, through the guest dialect in one
// cell (a tool's rejection is caught), and returns tool name → the catalog id
// of the tool.invoke that call sent ("" if none was sent).
func invokedIDs(ctx SpecContext, r *Run, ts []tools.Tool) map[string]string {
	inputs := map[string]any{"add": map[string]int{"a": 1, "b": 2}, "slow": map[string]int{"ms": 1}, "big": map[string]int{"size": 1}}
	var names []string
	before := map[string]int{}
	for _, t := range ts {
		names = append(names, t.Spec.Name)
		before[t.Spec.Name] = len(r.Tools.CallsOf(t.Spec.Name))
	}
	n, _ := json.Marshal(names)
	in, _ := json.Marshal(inputs)
	res, _ := r.RunToCompletion(ctx, Guest(fmt.Sprintf(`const inputs = %s;
		for (const n of %s) { try { await call(n, inputs[n] || {}); } catch (e) { if (String(e && e.message).startsWith("codemode-dialect:")) throw e; } }
		return true;`, in, n)))
	Expect(res).To(CompleteWith(true), "a cell calling every tool once through the dialect must complete")
	ids := map[string]string{}
	for _, name := range names {
		calls := r.Tools.CallsOf(name)
		Expect(calls).To(HaveLen(before[name]+1), "the cell's call of %s must reach the harness once", name)
		ids[name] = calls[len(calls)-1].CatalogID
	}
	return ids
}

// scaleTools is the size of CM-CAT-08's catalog: the reliability review's
// 10,000 (reviews/2026-12-01-reliability.md N3), which a conforming target
// on 2 cores serves within roomy's deadlines.
const scaleTools = 10000

var _ = Describe("codemode", "catalog scale", func() {
	It("CM-CAT-08", "a catalog of 10,000 tools is served (listed, searched, called, a cell suspends and resumes) or refused at prepare naming its size", func(ctx SpecContext) {
		ts := make([]tools.Tool, 0, scaleTools+5)
		for i := range scaleTools {
			ts = append(ts, tools.Named(protocol.SourcePlugin, "scale", fmt.Sprintf("scale_tool_%05d", i), fmt.Sprintf("Catalog filler number %05d; returns its own name.", i)))
		}
		ts = append(ts, tools.Standard()...)
		// The default limits, as the text says (000 [Configurazione]:
		// timeoutMs "Predefinito 10000"): code mode enabled and nothing else
		// set, so a target whose cells need the default budget to serve the
		// catalog is not failed under a shorter one.
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: ts, JudgesRefusal: true})
		if f := r.Prepared.Failure; f != nil {
			Expect(r.Prepared.CodeModeActive).To(BeFalse(), "a refused prepare must fail closed (codeModeActive false): %s: %s", f.Code, f.Error)
			Expect(r.Prepared.Tools).To(BeEmpty(), "a refused prepare must expose no tools: %s: %s", f.Code, f.Error)
			Expect(f.Error).To(MatchRegexp(`\b(10,?000|10,?005)\b`), "a catalog refused at prepare must be refused with an error naming its size (%d tools, %d of them filler), got %s: %s", len(ts), scaleTools, f.Code, f.Error)
			return
		}
		Expect(r.Prepared.CodeModeActive).To(BeTrue(), "code mode must be active for a catalog it accepts")
		last := fmt.Sprintf("scale_tool_%05d", scaleTools-1)
		// search at its default limit: the text asks that the cell searches
		// the catalog, not how high it ranks an exact name (CM-GUEST-03).
		res, _ := r.RunToCompletion(ctx, Guest(fmt.Sprintf(`const listed = listTools().length;
			const found = (await search(%q)).map((t) => t.name);
			return {listed, found: found.includes(%q), called: (await call("scale_tool_04321", {})).tool};`, last, last)))
		Expect(res).To(CompleteWith(map[string]any{"listed": float64(len(ts)), "found": true, "called": "scale_tool_04321"}),
			"a cell of an accepted %d-tool catalog must list every tool, find %s by name at the default search limit and call a tool of it", len(ts), last)
		// The slow call outlives one exec at the default budget (the
		// target's effectiveConfig.timeoutMs where it reports one, else
		// 000's 10000), so the cell must suspend.
		budget := int64(10000)
		if ec := r.Prepared.EffectiveConfig; ec != nil && ec.TimeoutMs > 0 {
			budget = min(ec.TimeoutMs, 60000)
		}
		slowMs := budget + 2500
		w := r.Exec(ctx, Guest(fmt.Sprintf(`const x = await call("slow", {ms: %d, tag: "scaled"}); return x.tag;`, slowMs)))
		Expect(w).To(BeWaiting(), "a cell of an accepted %d-tool catalog awaiting a %d ms nested call must suspend under the default limits (timeoutMs %d, maxSnapshotBytes)", len(ts), slowMs, budget)
		final, _ := r.Follow(ctx, w)
		Expect(final).To(CompleteWith("scaled"), "the suspended cell of the %d-tool catalog must resume with its nested result", len(ts))
	})
})
