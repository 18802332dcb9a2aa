package mcp

import (
	"encoding/json"
	"fmt"
	"sort"

	fakemcp "github.com/codemode-conformance/codemode/fakes/mcp"
	"github.com/codemode-conformance/codemode/fakes/tools"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/google/go-cmp/cmp"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// hostileCell maps the hostile server's namespace: the MCP key of every
// server, and for the hostile one each function member and the original
// tool name it reached (structuredContent.tool). Then it checks guest objects
// for prototype pollution.
const hostileCell = listPaths + `const server = Object.getOwnPropertyNames(MCP).find((k) => k !== "docs");
const ns = server === undefined ? {} : MCP[server];
const reached = {};
for (const k of Object.getOwnPropertyNames(ns)) {
	if (k === "$api" || typeof ns[k] !== "function") continue;
	const v = await ns[k]({city: "Oslo"});
	const raw = v && v.details && v.content && Object.keys(v).length === 2 ? v.details : v;
	reached[k] = raw && raw.structuredContent ? raw.structuredContent.tool : "(no structuredContent)";
}
const nsProto = ((p) => p === null ? "null" : p === Object.prototype ? "Object.prototype" : typeof p + " " + Object.getOwnPropertyNames(p).slice(0, 5).join())(Object.getPrototypeOf(ns));
const o = {}, protoNames = (p) => Object.getOwnPropertyNames(p).sort().join();
const files = paths(await API.list());
const file = files.find((p) => typeof p === "string" && p.startsWith("mcp/") && p !== "mcp/index.d.ts" && p !== "mcp/docs.d.ts");
return {servers: Object.getOwnPropertyNames(MCP).sort(), server, reached, nsProto, files, file, declaration: file ? await API.read(file) : "",
	resourcesRead: typeof (ns.resources && ns.resources.read),
	clean: {objToString: o.toString(), ctor: o.constructor === Object, proto: Object.getPrototypeOf(o) === Object.prototype, hasOwn: o.hasOwnProperty("city"),
		inherited: ["city", "tool", "getWeather", "get-weather", "2fa-code", "files.read", "doThing"].filter((k) => k in o),
		objectProto: protoNames(Object.prototype), functionProto: protoNames(Function.prototype), arrayProto: protoNames(Array.prototype)}};`

// cleanCell computes the same prototype lists in a cell of a run with no MCP
// server, for comparison.
const cleanCell = `const protoNames = (p) => Object.getOwnPropertyNames(p).sort().join();
return {objectProto: protoNames(Object.prototype), functionProto: protoNames(Function.prototype), arrayProto: protoNames(Array.prototype)};`

var _ = Describe("mcp", "unsafe MCP names", func() {
	forEachTransport(func(transport string) {
		It("CM-MCP-07", "unsafe server and tool names are renamed deterministically to callable identifiers, with no crash and no prototype pollution, over "+transport, func(ctx SpecContext) {
			baseline := NewRun(ctx, RunOptions{CodeMode: true, Tools: []tools.Tool{sumTool()}})
			clean, _ := baseline.RunToCompletion(ctx, cleanCell)
			cleanV := value(clean, "a cell listing the prototypes without MCP")

			servers := map[string]fakemcp.Kind{docs: fakemcp.KindDocs, hostileName: fakemcp.KindHostile}
			r := mcpRun(ctx, transport, servers)
			res, _ := r.RunToCompletion(ctx, hostileCell)
			v := value(res, "a cell calling every tool of the hostile server")
			server, _ := v["server"].(string)
			Expect(server).To(MatchRegexp(identifier.String()), "server %q must be exposed under a JavaScript identifier: %s", hostileName, res)
			Expect(v["nsProto"]).To(BeElementOf("null", "Object.prototype"), "defining the hostile tools (__proto__ among them) must not change the prototype of MCP.%s: %s", server, res)
			reached, _ := v["reached"].(map[string]any)
			var originals []string
			for k, o := range Sorted(reached) {
				Expect(k).To(MatchRegexp(identifier.String()), "MCP.%s member %q (tool %v) must be a JavaScript identifier: %s", server, k, o, res)
				originals = append(originals, fmt.Sprint(o))
			}
			sort.Strings(originals)
			want := append([]string(nil), fakemcp.HostileTools...)
			sort.Strings(want)
			Expect(cmp.Diff(want, originals)).To(BeEmpty(), "every tool of the hostile server must be callable through exactly one member of MCP.%s (-tools +reached)\n%s", server, res)
			if Features().Has("mcp-resources") {
				Expect(v["resourcesRead"]).To(Equal("function"), "tools named resources and prompts must not shadow MCP.<server>.resources.read: %s", res)
			}
			c, _ := v["clean"].(map[string]any)
			wantClean := map[string]any{"objToString": "[object Object]", "ctor": true, "proto": true, "hasOwn": false, "inherited": []any{},
				"objectProto": cleanV["objectProto"], "functionProto": cleanV["functionProto"], "arrayProto": cleanV["arrayProto"]}
			Expect(diff(wantClean, c)).To(BeEmpty(), "calling unsafe-named MCP tools must not pollute guest objects or prototypes (prototype members compared with a run without MCP servers) (-want +got)\n%s", res)

			file, _ := v["file"].(string)
			Expect(file).To(MatchRegexp(`^mcp/[^/]+\.d\.ts$`), "the hostile server's declaration file must be one safe path segment under mcp/: %v", v["files"])
			Expect(file).NotTo(MatchRegexp(`(^|/)\.\.?(/|$)`), "the hostile server's declaration path must have no . or .. segment")
			decl, _ := v["declaration"].(string)
			Expect(ParseTypeScript(file, decl)).To(BeEmpty(), "%s must parse as TypeScript (esbuild, loader ts):\n%s", file, decl)
			Expect(Squeeze(decl)).To(ContainSubstring("declare namespace MCP."+server+"{"), "%s must declare the namespace under the exposed name MCP.%s:\n%s", file, server, decl)
			for k := range Sorted(reached) {
				Expect(Squeeze(decl)).To(ContainSubstring("function "+k+"("), "%s must declare the tool under its exposed name %s:\n%s", file, k, decl)
			}

			// Deterministic: the same names in a later cell and in a new run.
			again, _ := r.RunToCompletion(ctx, hostileCell)
			a := value(again, "the same cell again")
			Expect(diff(reached, a["reached"])).To(BeEmpty(), "renaming must be the same in every cell of the run (-first +again)")
			other := mcpRun(ctx, transport, servers)
			fresh, _ := other.RunToCompletion(ctx, hostileCell)
			f := value(fresh, "the same cell in a new run")
			Expect(f["server"]).To(Equal(server), "the hostile server must get the same name in a new run")
			Expect(diff(reached, f["reached"])).To(BeEmpty(), "renaming must be the same in a new run with the same servers (-first run +second run)")
			b, _ := json.Marshal(reached)
			ginkgo.AddReportEntry("renamed", fmt.Sprintf("MCP.%s: %s", server, b), ginkgo.ReportEntryVisibilityFailureOrVerbose)
		})
	})
})
