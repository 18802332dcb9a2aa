package prelude_test

import (
	"encoding/json"

	"github.com/codemode-conformance/codemode/reference/prelude"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("catalog.js", func() {
	handled := []prelude.Entry{
		{ID: "openclaw:core:add", Name: "add", Description: "Add two numbers", Source: "openclaw", Parameters: json.RawMessage(`{"type":"object","required":["a","b"]}`),
			CallableName: "add", Input: "{ a: number; b: number }", Output: "{ sum: number }", OutputSchema: json.RawMessage(`{"type":"object"}`)},
		{ID: "plugin:a:web-search", Name: "web-search", Description: "Search the web", Source: "plugin", SourceName: "a",
			CallableName: "web_search", Input: "Record<string, unknown>", Output: "unknown"},
	}
	files := []prelude.MCPFile{{Path: "tools/add.d.ts", Bytes: 3, Text: "add"}}

	It("defines no catalog surface without config.handles (generation 1)", func(ctx SpecContext) {
		vm := newVM(ctx)
		loadAndBoot(ctx, vm, prelude.Boot{Catalog: handled, MaxOutputBytes: 65536, SearchDefaultLimit: 8, MaxSearchLimit: 3})
		out, err := vm.Eval(ctx, `JSON.stringify([typeof catalog, typeof add, typeof web_search])`, "probe")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(Equal(`["undefined","undefined","undefined"]`), "without config.handles no catalog global and no tool global may exist")
	})

	It("gives every entry a frozen handle, an async global and its declaration, and a call is a bridge call of the entry's id", func(ctx SpecContext) {
		vm := newVM(ctx)
		poll := loadAndBoot(ctx, vm, prelude.Boot{Catalog: handled, Handles: true, APIFiles: files, MaxOutputBytes: 65536, SearchDefaultLimit: 8, MaxSearchLimit: 3})
		out, err := vm.Eval(ctx, `(() => {
			const all = catalog.all();
			const h = all[0];
			add({a: 1, b: 2});
			return JSON.stringify({names: all.map((x) => x.callableName), same: h === add && all[1] === web_search, frozen: Object.isFrozen(h) && Object.isFrozen(all),
				keys: Object.keys(h).sort(), name: h.name, input: h.input, output: h.output, proto: h.prototype === undefined, json: JSON.parse(JSON.stringify(h)).toolName,
				writable: Object.getOwnPropertyDescriptor(globalThis, "add").writable});
		})()`, "probe")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(MatchJSON(`{"names":["add","web_search"],"same":true,"frozen":true,
			"keys":["callableName","describe","description","input","output","source","toolName"],"name":"add","input":"{ a: number; b: number }","output":"{ sum: number }",
			"proto":true,"json":"add","writable":false}`))
		_, err = vm.Eval(ctx, `API.read("tools/add.d.ts").then((t) => { globalThis.__read = t; }); API.read("tools/nope.d.ts").catch((e) => { globalThis.__refused = e.message; })`, "read")
		Expect(err).NotTo(HaveOccurred())
		_, err = vm.RunJobs(ctx)
		Expect(err).NotTo(HaveOccurred())
		out, err = vm.Eval(ctx, `JSON.stringify([__read, __refused])`, "read result")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(MatchJSON(`["add","Unknown API path \"tools/nope.d.ts\". Use API.list() to see the files."]`), "API.read serves config.apiFiles and refuses any other path")
		var p prelude.Poll
		Expect(json.Unmarshal([]byte(poll()), &p)).To(Succeed())
		Expect(p.Requests).To(HaveLen(1), "calling the global add is one bridge call")
		Expect(p.Requests[0].Op).To(Equal("call"))
		Expect(p.Requests[0].Tool).To(Equal("openclaw:core:add"), "the handle calls its own catalog id")
		Expect(p.Requests[0].Input).To(MatchJSON(`{"a":1,"b":2}`))
		Expect(p.Counts["call"]).To(Equal(1), "a handle call counts as a call")
	})
})
