package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	fakemcp "github.com/codemode-conformance/codemode/fakes/mcp"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/gomega"
)

// listPaths is guest code defining paths(list): the path of every entry an
// API.list call resolved (an entry is file metadata {path, …}; a bare
// string is read as its path).
const listPaths = `const paths = (l) => Array.isArray(l) ? l.map((f) => typeof f === "string" ? f : f && f.path) : l;` + "\n"

// mcpPaths are the entries of a listing that are no string or start with
// "mcp/": API.list() may list other virtual files beside the MCP ones
// (generation 2's tools/<callableName>.d.ts, spec/protocol.md §12.13).
func mcpPaths(listing any) []any {
	all, _ := listing.([]any)
	var out []any
	for _, p := range all {
		if s, ok := p.(string); !ok || strings.HasPrefix(s, "mcp/") {
			out = append(out, p)
		}
	}
	return out
}

// goldenDocs is the golden file of the docs server's declaration.
const goldenDocs = "docs.d.ts"

var _ = Describe("mcp", "the virtual API files", func() {
	forEachTransport(func(transport string) {
		It("CM-MCP-02", "API.list returns mcp/index.d.ts and one mcp/<server>.d.ts per visible server without a tool call, and the exec description names the API, over "+transport, func(ctx SpecContext) {
			r := mcpRun(ctx, transport, map[string]fakemcp.Kind{docs: fakemcp.KindDocs, "notes": fakemcp.KindDocs})
			var desc string
			for _, t := range r.Prepared.Tools {
				if t.Name == "exec" {
					desc = t.Description
				}
			}
			Expect(desc).To(SatisfyAny(ContainSubstring("API.list"), ContainSubstring("API.read")),
				"the exec description must tell the agent that the virtual API (API.list/API.read) exists under feature mcp: %q", desc)
			res := r.Exec(ctx, listPaths+`const all = await API.list(), mcp = await API.list("mcp");
				return {all: paths(all), mcp: paths(mcp), entries: all};`)
			res, _ = r.Follow(ctx, res)
			v := value(res, "a cell listing the virtual API")
			want := []any{"mcp/docs.d.ts", "mcp/index.d.ts", "mcp/notes.d.ts"}
			for _, k := range []string{"all", "mcp"} {
				got := mcpPaths(v[k])
				sort.Slice(got, func(i, j int) bool { return fmt.Sprint(got[i]) < fmt.Sprint(got[j]) })
				Expect(cmp.Diff(want, got)).To(BeEmpty(), "API.list(%s) must list mcp/index.d.ts and one file per server (paths read from each entry's path) (-want +got)\n%s",
					map[string]string{"all": "", "mcp": `"mcp"`}[k], res)
			}
			entries, _ := v["entries"].([]any)
			for _, e := range entries {
				Expect(e).To(BeAssignableToTypeOf(map[string]any{}), "API.list must return file metadata objects ({path, …}), got %v: %s", e, res)
			}
			Expect(r.Tools.Calls()).To(BeEmpty(), "listing the virtual API must make no tool.invoke")
			Expect(serverCalls(ctx, r, docs)).To(BeZero(), "listing the virtual API must call no MCP tool")

			// A server whose every tool the policy denies is not visible: no file.
			denied := mcpRunWith(ctx, transport, map[string]fakemcp.Kind{docs: fakemcp.KindDocs, "notes": fakemcp.KindDocs}, RunOptions{Policy: &protocol.Policy{Deny: []string{"notes"}}})
			res, _ = denied.RunToCompletion(ctx, listPaths+`return {files: paths(await API.list()).filter((p) => typeof p !== "string" || p.startsWith("mcp/")).sort(), notes: typeof MCP.notes};`)
			Expect(res).To(CompleteWith(map[string]any{"files": []any{"mcp/docs.d.ts", "mcp/index.d.ts"}, "notes": "undefined"}),
				"with policy deny [\"notes\"] server notes has no visible tool, so it must have no declaration file and no namespace")
		})

		It("CM-MCP-03", "API.read returns the declaration: McpToolResult, the namespace, $api and one typed, documented function per tool, over "+transport, func(ctx SpecContext) {
			r := mcpRun(ctx, transport, map[string]fakemcp.Kind{docs: fakemcp.KindDocs})
			res, _ := r.RunToCompletion(ctx, MCPGuest(`return {docs: await API.read("mcp/docs.d.ts"), index: await API.read("mcp/index.d.ts"), names: Object.getOwnPropertyNames(MCP.docs).filter((k) => k !== "$api" && typeof MCP.docs[k] === "function")};`))
			v := value(res, "a cell reading mcp/docs.d.ts and mcp/index.d.ts")
			text, _ := v["docs"].(string)
			index, _ := v["index"].(string)
			Expect(text).NotTo(BeEmpty(), "API.read(\"mcp/docs.d.ts\") must resolve to the declaration text: %s", res)
			both := Squeeze(index + "\n" + text)
			sq := Squeeze(text)
			// member is a member declaration as Squeeze renders it, after "{",
			// ";" or a JSDoc's "*/" (types of the enum and the nested object
			// are cut at their start).
			member := func(name, typ string) string { return "\x00" + name + ":" + typ }
			musts := []struct{ what, sub string }{
				{"the McpToolResult type of the seed", Squeeze(`type McpToolResult = { content?: unknown[]; structuredContent?: unknown; isError?: boolean; [key: string]: unknown; }`)},
				{"the server's namespace", "declare namespace MCP.docs{"},
				{"$api with its JSDoc", Squeeze(`/** Return this TypeScript-style API header. */ function $api(toolName?: string, options?: { schema?: boolean }): Promise<McpApiHeader>;`)},
				{"create_issue's JSDoc from its description", "Create an issue in a repository."},
				{"an @param line per property", "@param owner Repository owner"},
				{"an @param line per property", "@param repo Repository name"},
				{"an @param line per property", "@param title Issue title"},
				{"an @param line per property", "@param body Issue body in Markdown"},
				{"required properties as required members", member("owner", "string")},
				{"required properties as required members", member("title", "string")},
				{"optional properties as optional members", member("body?", "string")},
				{"optional properties as optional members", member("labels?", "")},
				{"a required string property", member("query", "string")},
				{"an enum as a union of string literals", member("format?", `"markdown"|"text"`)},
				{"a nested object typed from its schema", member("filter?", "{")},
				{"a nested object's required member", member("tag", "string")},
				{"a nested object's optional member", member("since?", "string")},
				{"a tool's return type", "):Promise<McpToolResult>;"},
			}
			for _, m := range musts {
				target := sq
				if strings.HasPrefix(m.sub, "type McpToolResult") {
					target = both // may live in index.d.ts, which every server file shares
				}
				want := ContainSubstring(m.sub)
				if sub, ok := strings.CutPrefix(m.sub, "\x00"); ok {
					m.sub, want = sub, MatchRegexp(`(^|[{;/])`+regexp.QuoteMeta(sub))
				}
				Expect(target).To(want, "mcp/docs.d.ts must hold %s: %q (blanks around punctuation ignored)\n--- mcp/docs.d.ts:\n%s\n--- mcp/index.d.ts:\n%s", m.what, m.sub, text, index)
			}
			names, _ := v["names"].([]any)
			Expect(names).To(HaveLen(len(docsTools)), "MCP.docs must have one function per tool of the server (%d tools: %v) beside $api: %s", len(docsTools), docsTools, res)
			for _, n := range names {
				Expect(sq).To(ContainSubstring(fmt.Sprintf("function %s(input", n)), "mcp/docs.d.ts must declare MCP.docs.%s as a function taking one input object:\n%s", n, text)
			}
			for name, t := range Sorted(map[string]string{"mcp/docs.d.ts": text, "mcp/index.d.ts": index}) {
				Expect(ParseTypeScript(name, t)).To(BeEmpty(), "%s must parse as TypeScript (esbuild, loader ts):\n%s", name, t)
			}
		})

		It("CM-MCP-03", "the declaration of the docs server matches the golden file "+goldenDocs+", over "+transport, func(ctx SpecContext) {
			r := mcpRun(ctx, transport, map[string]fakemcp.Kind{docs: fakemcp.KindDocs})
			res, _ := r.RunToCompletion(ctx, `return await API.read("mcp/docs.d.ts");`)
			Expect(res).To(BeCompleted(), "API.read(\"mcp/docs.d.ts\") must resolve")
			text, _ := res.ValueAny().(string)
			if UpdateGolden {
				Expect(WriteGolden(goldenDocs, text)).To(Succeed(), "writing testdata/%s", goldenDocs)
				return
			}
			want, err := Golden(goldenDocs)
			Expect(err).NotTo(HaveOccurred(), "the golden file testdata/%s is embedded in the suite", goldenDocs)
			Expect(cmp.Diff(DeclarationLines(want), DeclarationLines(text))).To(BeEmpty(),
				"mcp/docs.d.ts must match testdata/%s line by line (indentation and blank lines ignored; regenerate with make mcp-golden after a deliberate change) (-golden +target)", goldenDocs)
		})

		It("CM-MCP-04", "API.read rejects unknown paths and . or .. segments, and the VM stays usable, over "+transport, func(ctx SpecContext) {
			r := mcpRun(ctx, transport, map[string]fakemcp.Kind{docs: fakemcp.KindDocs})
			bad := []string{"mcp/nope.d.ts", "mcp/docs.ts", "mcp", "mcp/", "index.d.ts", "docs.d.ts", "/mcp/docs.d.ts", "mcp//docs.d.ts",
				".", "..", "./mcp/docs.d.ts", "mcp/./docs.d.ts", "mcp/../mcp/docs.d.ts", "../mcp/docs.d.ts", "mcp/docs.d.ts/..", "mcp/..", "mcp/../../etc/passwd", "/etc/passwd"}
			list := "["
			for _, p := range bad {
				list += fmt.Sprintf("%q,", p)
			}
			list += "]"
			res, _ := r.RunToCompletion(ctx, probe+fmt.Sprintf(`const out = {};
				for (const p of %s) { const r = await probe(() => API.read(p)); out[p] = r.caught ? "rejected" : "resolved " + JSON.stringify(r.resolved).slice(0, 80); }
				const again = await API.read("mcp/docs.d.ts");
				return {out, readable: typeof again === "string" && again.length > 0};`, list))
			v := value(res, "a cell reading bad paths")
			want := map[string]any{}
			for _, p := range bad {
				want[p] = "rejected"
			}
			Expect(diff(map[string]any{"out": want, "readable": true}, v)).To(BeEmpty(),
				"API.read must reject every unknown path and every path with a . or .. segment, and a later API.read must still work (-want +got)\n%s", res)
			Expect(r.Tools.Calls()).To(BeEmpty(), "API.read must make no tool.invoke")
			Expect(serverCalls(ctx, r, docs)).To(BeZero(), "API.read must call no MCP tool")
		})

		It("CM-MCP-05", "MCP.<server>.$api returns an inline API header, for one tool, and with its schema on request, over "+transport, func(ctx SpecContext) {
			r := mcpRun(ctx, transport, map[string]fakemcp.Kind{docs: fakemcp.KindDocs})
			res, _ := r.RunToCompletion(ctx, MCPGuest(`const k = jsName(MCP.docs, "create_issue");
				const all = await MCP.docs.$api(), one = await MCP.docs.$api(k), schema = await MCP.docs.$api(k, {schema: true});
				return {k, all, one, schema};`))
			v := value(res, "a cell asking $api")
			str := func(x any) string { return fmt.Sprint(JSONNormal(x)) }
			Expect(v["k"]).NotTo(BeNil(), "MCP.docs must have a function for create_issue: %s", res)
			Expect(str(v["all"])).To(And(ContainSubstring("Create an issue in a repository."), ContainSubstring("Echo the input back.")),
				"$api() must describe every tool of the server: %s", res)
			Expect(str(v["one"])).To(ContainSubstring("Create an issue in a repository."), "$api(toolName) must describe that tool: %s", res)
			Expect(str(v["one"])).NotTo(ContainSubstring("Echo the input back."), "$api(toolName) must describe only that tool: %s", res)
			schema := JSONNormal(map[string]any{
				"type": "object",
				"properties": map[string]any{
					"owner": map[string]any{"type": "string", "description": "Repository owner"}, "repo": map[string]any{"type": "string", "description": "Repository name"},
					"title": map[string]any{"type": "string", "description": "Issue title"}, "body": map[string]any{"type": "string", "description": "Issue body in Markdown"},
					"labels": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "Labels to add"},
				},
				"required": []any{"owner", "repo", "title"},
			})
			Expect(holds(v["schema"], schema)).To(BeTrue(), "$api(toolName, {schema: true}) must carry the tool's input JSON schema as the server listed it: %s", res)
		})

		It("CM-MCP-11", "API is read-only: no write operation, and guest changes to API or to what it returned change no later result, over "+transport, func(ctx SpecContext) {
			r := mcpRun(ctx, transport, map[string]fakemcp.Kind{docs: fakemcp.KindDocs})
			wd, _ := os.Getwd()
			res, _ := r.RunToCompletion(ctx, probe+listPaths+`const l1 = JSON.stringify(await API.list()), t1 = await API.read("mcp/docs.d.ts");
				const fns = [];
				for (let o = API; o && o !== Object.prototype && o !== Function.prototype; o = Object.getPrototypeOf(o))
					for (const k of Object.getOwnPropertyNames(o)) if (k !== "constructor" && typeof API[k] === "function") fns.push(k);
				const got = await API.list(); got.push({path: "mcp/evil.d.ts"}); if (got[0] && typeof got[0] === "object") { try { got[0].path = "mcp/evil.d.ts"; } catch (e) {} }
				await probe(() => { API.read = async () => "replaced"; }); await probe(() => { API.list = async () => []; });
				await probe(() => { delete API.read; }); await probe(() => { Object.defineProperty(API, "list", {value: async () => []}); });
				await probe(() => { API.write = async () => true; });
				const l2 = JSON.stringify(await API.list()), t2 = await API.read("mcp/docs.d.ts");
				return {fns: fns.sort(), sameList: l1 === l2, sameText: t1 === t2, l1, l2: l2 === l1 ? "" : l2};`)
			v := value(res, "a cell trying to change API")
			Expect(v["fns"]).To(ConsistOf("list", "read"), "API must have no operation beyond list and read (no write): %s", res)
			Expect(v["sameList"]).To(BeTrue(), "changing API or a returned list must not change a later API.list: %s", res)
			Expect(v["sameText"]).To(BeTrue(), "changing API must not change a later API.read: %s", res)
			next, _ := r.RunToCompletion(ctx, `return JSON.stringify(await API.list());`)
			Expect(next).To(CompleteWith(v["l1"]), "the next cell's API.list must be the first one's")
			for _, dir := range []string{wd, os.TempDir()} {
				Expect(filepath.Join(dir, "mcp", "docs.d.ts")).NotTo(BeAnExistingFile(), "declaration files are virtual: none may be written under %s", dir)
			}
		})
	})
})

// holds reports whether want (normalised JSON) occurs anywhere in v.
func holds(v, want any) bool {
	if cmp.Equal(JSONNormal(v), want) {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		for _, e := range Sorted(x) {
			if holds(e, want) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if holds(e, want) {
				return true
			}
		}
	case string:
		// A header may carry the schema as JSON text.
		var y any
		if strings.HasPrefix(strings.TrimSpace(x), "{") && jsonUnmarshal(x, &y) == nil {
			return holds(y, want)
		}
	}
	return false
}
