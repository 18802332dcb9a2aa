package prelude_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/prelude"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestPrelude(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "reference/prelude")
}

var catalog = []prelude.Entry{
	{ID: "openclaw:core:add", Name: "add", Description: "Add two numbers", Source: "openclaw", Parameters: json.RawMessage(`{"type":"object","required":["a","b"]}`)},
	{ID: "plugin:a:web_search", Name: "web_search", Description: "Search the web (a)", Source: "plugin", SourceName: "a"},
	{ID: "plugin:b:web-search", Name: "web-search", Description: "Search the web (b)", Source: "plugin", SourceName: "b"},
	{ID: "openclaw:core:constructor", Name: "constructor", Description: "A tool named like a prototype member", Source: "openclaw"},
	{ID: "openclaw:core:search", Name: "search", Description: "A tool named like a catalog helper", Source: "openclaw"},
}

var _ = Describe("prelude.js", func() {
	It("passes its own JavaScript tests (testdata/prelude.test.js)", func(ctx SpecContext) {
		vm := newVM(ctx)

		br, err := prelude.Load(ctx, vm)
		Expect(err).NotTo(HaveOccurred())
		var sunk []json.RawMessage // output reaches the host through the VM's sink as it is written
		vm.SetSink(func(item string) { sunk = append(sunk, json.RawMessage(item)) })
		Expect(br.Boot(ctx, vm, prelude.Boot{Catalog: catalog, MaxOutputBytes: 65536, SearchDefaultLimit: 8, MaxSearchLimit: 3})).To(Succeed())

		got := runJSTests(ctx, vm, "testdata/prelude.test.js")
		Expect(got.Failures).To(BeEmpty())
		Expect(got.Settled).To(Equal(6))

		raw, err := br.Poll(ctx, vm)
		Expect(err).NotTo(HaveOccurred())
		var p prelude.Poll
		Expect(json.Unmarshal([]byte(raw), &p)).To(Succeed())
		Expect(p.Output).To(BeEmpty(), "output goes through the sink, not the poll")
		p.Output = sunk
		Expect(p.Output).To(HaveLen(3))
		Expect(p.Output[0]).To(MatchJSON(`{"type":"json","value":{"f":"[Function: f]","s":"Symbol(q)","b":"10","cyc":{"a":1,"self":"[Circular]"},"d":"1970-01-01T00:00:00.000Z","bin":{"0":0,"1":0},"bad":"[Unserializable: nope]"}}`))
		Expect(p.Output[1]).To(MatchJSON(`{"type":"text","text":"42"}`))
		Expect(p.Requests).To(BeEmpty(), "no host request for an unknown tool")
	})
})

// newVM is a fresh engine and VM (32 MiB) for one spec, closed after it.
func newVM(ctx context.Context) *engine.VM {
	GinkgoHelper()
	eng, err := engine.New(ctx)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { eng.Close(context.Background()) })
	vm, err := eng.NewVM(ctx, engine.Limits{MemoryBytes: 32 << 20})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { vm.Close(context.Background()) })
	return vm
}

// jsTests is what a testdata/*.test.js file reports: the failures of its
// settle() callbacks and how many ran.
type jsTests struct {
	Failures []string
	Settled  int
}

// runJSTests evaluates the test file at path in vm, runs its promise jobs
// and collects its results.
func runJSTests(ctx context.Context, vm *engine.VM, path string) jsTests {
	GinkgoHelper()
	src, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	_, err = vm.Eval(ctx, "globalThis.__t = ("+string(src)+")()", filepath.Base(path))
	Expect(err).NotTo(HaveOccurred())
	_, err = vm.RunJobs(ctx)
	Expect(err).NotTo(HaveOccurred())
	out, err := vm.Eval(ctx, `(() => { for (const [name, kind, v, cb] of __t.results) { try { cb(v, kind) } catch (e) { __t.failures.push(name + ": " + e) } }
			return JSON.stringify({failures: __t.failures, settled: __t.results.length}) })()`, "collect")
	Expect(err).NotTo(HaveOccurred())
	var got jsTests
	Expect(json.Unmarshal([]byte(out), &got)).To(Succeed())
	return got
}
