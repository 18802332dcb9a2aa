package namespaces_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/reference/namespaces"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestNamespaces(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "reference/namespaces")
}

// catalog maps "owner/name" to a catalog id.
type catalog map[string]string

func (c catalog) Owned(pluginID, name string) (string, bool) {
	id, ok := c[pluginID+"/"+name]
	return id, ok
}

var owned = catalog{"github/list": "plugin:github:list", "github/update": "plugin:github:update", "github/delete": "plugin:github:delete"}

func reg(scope string, shared map[string]string) protocol.NamespaceRegistration {
	r := protocol.NamespaceRegistration{PluginID: "github", ID: "gh", GlobalName: "Issues", Description: "d", Prompt: "p",
		RequiredToolNames: []string{"list", "update"}, Scope: json.RawMessage(scope), Config: json.RawMessage(`{"repo":"demo"}`)}
	if shared != nil {
		r.Shared = map[string]json.RawMessage{}
		for k, v := range shared {
			r.Shared[k] = json.RawMessage(v)
		}
	}
	return r
}

var n = 0

func instance() string { n++; return fmt.Sprint("i", n) }

func run(regs ...protocol.NamespaceRegistration) *namespaces.Run {
	return namespaces.NewRun(regs, owned, namespaces.Context{AgentID: "a", SessionKey: "k", SessionID: "s", RunID: "r"}, instance)
}

const list = `{"$codemode":"tool","tool":"list"}`
const update = `{"$codemode":"tool","tool":"update","input":{"kind":"positional","names":["number","patch"]}}`

var _ = Describe("Registry", func() {
	It("registers by namespace id, clears one plugin's registrations and clears all", func() {
		r := namespaces.NewRegistry()
		a := reg(`{}`, nil)
		b := a
		b.ID, b.PluginID = "other", "acme"
		Expect(r.Apply(&protocol.NamespaceChanges{Register: []protocol.NamespaceRegistration{a, b, a}})).To(Succeed())
		Expect(r.List()).To(HaveLen(2), "registering the same id twice replaces it")
		Expect(r.ClearPlugin("github")).To(Equal(1))
		Expect(r.List()).To(ConsistOf(HaveField("ID", "other")))
		Expect(r.Apply(&protocol.NamespaceChanges{ClearAll: true})).To(Succeed())
		Expect(r.List()).To(BeEmpty())
		Expect(r.Register(protocol.NamespaceRegistration{ID: "x", Scope: json.RawMessage(`{}`)})).To(MatchError(namespaces.ErrInvalidRegistration))
	})

	It("bounds the registrations it holds in number and bytes; a replacement and a clear make room (issue 28 nits)", func() {
		r := namespaces.NewRegistry()
		a := reg(`{}`, nil)
		for i := 0; i < namespaces.MaxRegistrations; i++ {
			a.ID = fmt.Sprintf("ns-%d", i)
			Expect(r.Register(a)).To(Succeed())
		}
		a.ID = "one-too-many"
		Expect(r.Register(a)).To(MatchError(ContainSubstring("holds 1024 registrations")))
		a.ID = "ns-7"
		Expect(r.Register(a)).To(Succeed(), "replacing one is not one more")
		Expect(r.ClearPlugin("github")).To(Equal(namespaces.MaxRegistrations))
		big := reg(`{"data":"`+strings.Repeat("x", namespaces.MaxRegistrationsBytes/2)+`"}`, nil)
		big.ID = "big-1"
		Expect(r.Register(big)).To(Succeed())
		big.ID = "big-2"
		Expect(r.Register(big)).To(MatchError(ContainSubstring("over its limit of 16777216")))
		big.ID = "big-1"
		Expect(r.Register(big)).To(Succeed(), "a replacement counts its own size once")
		r.ClearAll()
		big.ID = "big-2"
		Expect(r.Register(big)).To(Succeed(), "clearAll frees the bytes")
	})
})

var _ = Describe("Run", func() {
	It("keeps only namespaces whose required tools the plugin owns, and never serialises a hidden one (CM-NS-02, CM-NS-04)", func() {
		hidden := reg(`{"f":{"$codemode":"function","name":"f"}}`, nil)
		hidden.ID, hidden.PluginID, hidden.GlobalName = "evil", "evil", "Evil"
		rn := run(reg(`{"list":`+list+`}`, nil), hidden)
		Expect(rn.Err).NotTo(HaveOccurred(), "a hidden namespace's scope is never created")
		Expect(rn.Visible).To(HaveLen(1))
		Expect(rn.Prompt()).To(ContainSubstring("Issues: d p"))
		Expect(run(hidden).Prompt()).To(BeEmpty(), "no visible namespace: nothing in the exec description (CM-ACT-07)")
	})

	It("serialises nested objects, shared references, context and non-JSON values (CM-NS-04, CM-NS-08)", func() {
		rn := run(reg(`{"a":{"$codemode":"ref","name":"s"},"b":[{"$codemode":"ref","name":"s"}],"ctx":{"agent":{"$codemode":"context","key":"agentId"},"cfg":{"$codemode":"context","key":"config"},"inst":{"$codemode":"context","key":"instance"}},
			"odd":{"u":{"$codemode":"nonJson","type":"undefined"},"big":{"$codemode":"nonJson","type":"bigint","text":"9"},"nan":{"$codemode":"nonJson","type":"nan"}},"list":`+list+`,"deep":{"update":`+update+`}}`,
			map[string]string{"s": `{"x":1}`}))
		Expect(rn.Err).NotTo(HaveOccurred())
		b, err := json.Marshal(rn.Descriptors())
		Expect(err).NotTo(HaveOccurred())
		var got []map[string]any
		Expect(json.Unmarshal(b, &got)).To(Succeed())
		Expect(got).To(HaveLen(1))
		v := got[0]["value"].(map[string]any)
		Expect(v["ctx"].(map[string]any)["inst"]).To(HavePrefix("i"), "instance names the createScope call")
		delete(v["ctx"].(map[string]any), "inst")
		want := map[string]any{"a": map[string]any{"x": 1.0}, "b": []any{map[string]any{"x": 1.0}},
			"ctx": map[string]any{"agent": "a", "cfg": map[string]any{"repo": "demo"}},
			"odd": map[string]any{"big": "9", "nan": nil}, "list": nil, "deep": map[string]any{"update": nil}}
		Expect(cmp.Diff(want, v)).To(BeEmpty())
		Expect(got[0]["callables"]).To(Equal([]any{[]any{"list"}, []any{"deep", "update"}}))
		Expect(string(b)).To(ContainSubstring(`"value":{"a":`), "members keep their declaration order")
	})

	DescribeTable("rejects a registration before any guest code runs (CM-NS-07)", func(globalName, scope string, shared map[string]string, want error) {
		r := reg(scope, shared)
		r.GlobalName = globalName
		rn := run(r)
		Expect(rn.Err).To(MatchError(want))
		Expect(rn.Visible).To(BeEmpty())
	},
		Entry("raw function", "Issues", `{"f":{"$codemode":"function","name":"f"}}`, nil, namespaces.ErrRawFunction),
		Entry("cycle", "Issues", `{"a":{"$codemode":"ref","name":"a"}}`, map[string]string{"a": `{"me":{"$codemode":"ref","name":"a"}}`}, namespaces.ErrCycle),
		Entry("__proto__", "Issues", `{"__proto__":{}}`, nil, namespaces.ErrUnsafeSegment),
		Entry("constructor", "Issues", `{"x":{"constructor":1}}`, nil, namespaces.ErrUnsafeSegment),
		Entry("prototype", "Issues", `{"prototype":1}`, nil, namespaces.ErrUnsafeSegment),
		Entry("empty key", "Issues", `{"":1}`, nil, namespaces.ErrUnsafeSegment),
		Entry("separator", "Issues", `{"a.b":1}`, nil, namespaces.ErrUnsafeSegment),
		Entry("undeclared tool", "Issues", `{"d":{"$codemode":"tool","tool":"delete"}}`, nil, namespaces.ErrUndeclaredTool),
		Entry("dangling ref", "Issues", `{"a":{"$codemode":"ref","name":"nope"}}`, nil, namespaces.ErrBadScope),
		Entry("not an identifier", "2fast", `{}`, nil, namespaces.ErrGlobalName),
		Entry("reserved word", "class", `{}`, nil, namespaces.ErrGlobalName),
		Entry("tools", "tools", `{}`, nil, namespaces.ErrBuiltinCollision),
		Entry("yield_control", "yield_control", `{}`, nil, namespaces.ErrBuiltinCollision),
		Entry("__openclaw prefix", "__openclawX", `{}`, nil, namespaces.ErrBuiltinCollision),
		Entry("a standard global", "JSON", `{}`, nil, namespaces.ErrBuiltinCollision),
		Entry("markup", "<script>", `{}`, nil, namespaces.ErrGlobalName),
		Entry("a line separator", "a\u2028b", `{}`, nil, namespaces.ErrGlobalName),
		Entry("a zero-width joiner first", "\u200dx", `{}`, nil, namespaces.ErrGlobalName),
		Entry("the v2 timer setTimeout, caught on the host before the exec description names it (issue 28 nits)", "setTimeout", `{}`, nil, namespaces.ErrBuiltinCollision),
		Entry("clearTimeout", "clearTimeout", `{}`, nil, namespaces.ErrBuiltinCollision),
	)

	DescribeTable("accepts any ECMAScript identifier, not only ASCII ones (issue 28 nits)", func(globalName string) {
		r := reg(`{}`, nil)
		r.GlobalName = globalName
		Expect(run(r).Err).NotTo(HaveOccurred())
	},
		Entry("ಠ_ಠ", "ಠ_ಠ"),
		Entry("Ünïcödé", "Ünïcödé"),
		Entry("$ and digits", "$gh2"),
		Entry("a combining mark after the first", "e\u0301t"),
	)

	It("resolves a guest call only for a visible namespace's own callables and maps its arguments (CM-NS-03, CM-NS-06)", func() {
		rn := run(reg(`{"list":`+list+`,"deep":{"update":`+update+`},"data":1}`, nil))
		Expect(rn.Err).NotTo(HaveOccurred())
		id, in, err := rn.Resolve("gh", "list", json.RawMessage(`[]`), owned)
		Expect(err).NotTo(HaveOccurred())
		Expect(id).To(Equal("plugin:github:list"))
		Expect(string(in)).To(Equal(`{}`))
		_, in, _ = rn.Resolve("gh", "list", json.RawMessage(`[{"state":"open"},2]`), owned)
		Expect(string(in)).To(Equal(`{"state":"open"}`))
		id, in, err = rn.Resolve("gh", "deep.update", json.RawMessage(`[7,{"t":1}]`), owned)
		Expect(err).NotTo(HaveOccurred())
		Expect(id).To(Equal("plugin:github:update"))
		Expect(string(in)).To(Equal(`{"number":7,"patch":{"t":1}}`))
		for _, forged := range [][2]string{{"evil", "list"}, {"gh", "data"}, {"gh", "deep"}, {"gh", "list.__proto__"}, {"gh", ""}, {"gh", "delete"}} {
			_, _, err := rn.Resolve(forged[0], forged[1], json.RawMessage(`[]`), owned)
			Expect(errors.Is(err, namespaces.ErrForged)).To(BeTrue(), "%v: %v", forged, err)
		}
		_, _, err = rn.Resolve("gh", "list", json.RawMessage(`{}`), owned)
		Expect(err).To(MatchError(namespaces.ErrBadArgs))
		// Ownership is checked again at the call: a catalog where the
		// plugin no longer owns the tool refuses it.
		_, _, err = rn.Resolve("gh", "list", json.RawMessage(`[]`), catalog{"evil/list": "plugin:evil:list"})
		Expect(err).To(MatchError(namespaces.ErrNotOwned))
	})
})
