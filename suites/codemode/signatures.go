package codemode

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/google/go-cmp/cmp"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Generation 2's catalog surface (feature javascript-only, spec/protocol.md
// §12.13): tools are async globals listed in a quick index at the end of
// the exec description, catalog.all()/catalog.search() give callable
// handles, and API.read("tools/<callableName>.d.ts") gives a declaration.
// Every one of them types a tool's input and output from its schemas.

// The tools of the spec: lookupOrder declares an output schema, pingHost
// none, wipeDisk is denied by policy. All are core tools: a target may
// type the schemas of other sources as unknown (OpenClaw 2026.9.6 trusts
// only source openclaw's).
const (
	lookupOrder = "lookup_order"
	pingHost    = "ping_host"
	wipeDisk    = "wipe_disk"
)

var (
	lookupInput  = json.RawMessage(`{"type":"object","properties":{"orderId":{"type":"string","description":"Order number"},"verbose":{"type":"boolean"}},"required":["orderId"]}`)
	lookupOutput = json.RawMessage(`{"type":"object","properties":{"status":{"type":"string","enum":["open","shipped"]},"total":{"type":"number"}},"required":["status","total"],"additionalProperties":false}`)
	pingInput    = json.RawMessage(`{"type":"object","properties":{"host":{"type":"string"}},"required":["host"]}`)
)

func signatureTools() []tools.Tool {
	lookup := tools.Core(lookupOrder, "Look up an order by its number and return its status and total.", lookupInput,
		func(context.Context, json.RawMessage) (any, error) {
			return map[string]any{"status": "open", "total": 12.5}, nil
		})
	lookup.Spec.OutputSchema = lookupOutput
	ping := tools.Core(pingHost, "Check that a host answers.", pingInput,
		func(context.Context, json.RawMessage) (any, error) { return map[string]any{"ok": true}, nil })
	wipe := tools.Core(wipeDisk, "Erase a disk.", json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`),
		func(context.Context, json.RawMessage) (any, error) { return map[string]any{"wiped": true}, nil })
	return []tools.Tool{lookup, ping, wipe}
}

// noBlanks drops every blank, so that a member such as `verbose?:boolean`
// matches however the target lays out a type.
func noBlanks(s string) string { return strings.Join(strings.Fields(s), "") }

// anyType is the type any in a signature: a tool's type is never a guess.
var anyType = regexp.MustCompile(`\bany\b`)

// The lookup_order members every description of the tool must type.
var (
	lookupInputMembers  = []string{"orderId:string", "verbose?:boolean"}
	lookupOutputMembers = []string{`status:"open"|"shipped"`, "total:number"}
	pingInputMembers    = []string{"host:string"}
)

// signatureGuest reads the whole surface in one cell: the handles of
// catalog.all() and catalog.search(), the globals, describe(), the
// declarations API.list/API.read give (the text is API.read's string, or
// the content of the file object it resolves), a call through the async
// global, and what the denied tool's declaration path gives.
const signatureGuest = `
const handle = (h) => h && {type: typeof h, frozen: Object.isFrozen(h), callableName: h.callableName, toolName: h.toolName,
  description: h.description, source: h.source, input: h.input, output: h.output === undefined ? null : h.output};
const read = async (p) => { try { const f = await API.read(p); return {text: typeof f === "string" ? f : f && f.content}; }
  catch (e) { return {error: String(e && e.message || e)}; } };
const all = await catalog.all();
const L = all.find((h) => h.toolName === "lookup_order"), P = all.find((h) => h.toolName === "ping_host");
const listed = await API.list("tools");
const files = Array.isArray(listed) ? listed : (listed && listed.files) || [];
return {
  names: all.map((h) => h.toolName).sort(),
  lookup: handle(L), ping: handle(P),
  searched: (await catalog.search("look up an order")).map((h) => h.toolName),
  searchedWipe: (await catalog.search("erase a disk")).map((h) => h.toolName),
  global: L ? {type: typeof globalThis[L.callableName], same: globalThis[L.callableName] === L} : null,
  wipeGlobal: typeof globalThis.wipe_disk,
  described: L ? await L.describe() : null,
  paths: files.map((f) => typeof f === "string" ? f : f.path).sort(),
  declLookup: L ? await read("tools/" + L.callableName + ".d.ts") : null,
  declPing: P ? await read("tools/" + P.callableName + ".d.ts") : null,
  declWipe: await read("tools/wipe_disk.d.ts"),
  wipeAfter: typeof globalThis.wipe_disk,
  called: L ? await globalThis[L.callableName]({orderId: "A-1"}) : null,
};`

type sigHandle struct {
	Type, CallableName, ToolName, Description, Source, Input string
	Frozen                                                   bool
	Output                                                   *string
}

type sigDecl struct {
	Text  *string `json:"text"`
	Error *string `json:"error"`
}

type sigView struct {
	Names, Searched, SearchedWipe, Paths []string
	Lookup, Ping                         *sigHandle
	Global                               *struct {
		Type string
		Same bool
	}
	WipeGlobal, WipeAfter          string
	Described                      map[string]any
	DeclLookup, DeclPing, DeclWipe *sigDecl
	Called                         any
}

// handleNamesNote says where CM-TS-06's names come from: 001 names catalog
// handles ("目录句柄") without defining them, and catalog.all(), toolName,
// callableName and describe() are OpenClaw 2026.9.6's source (basis
// openclaw-source, protocol.md §12.13).
const handleNamesNote = "(the names catalog.all(), toolName, callableName and describe() are OpenClaw 2026.9.6's source, not page 001, which names catalog handles without defining them; protocol.md §12.13)"

var _ = Describe("codemode", "generation 2 catalog surface", func() {
	It("CM-TS-06", "tool inputs and outputs are TypeScript-style signatures in the quick index, on catalog handles and in API.read declarations; an output without a schema is unknown; a declaration grants no access", func(ctx SpecContext) {
		r := NewRun(ctx, RunOptions{CodeMode: true, Tools: signatureTools(), Policy: &protocol.Policy{Deny: []string{wipeDisk}}})
		Expect(r.Prepared.CodeModeActive).To(BeTrue(), "code mode must activate: %+v", r.Prepared)

		res, _ := r.RunToCompletion(ctx, signatureGuest)
		Expect(res).To(BeCompleted(), "the cell reading the catalog surface must complete %s: %s", handleNamesNote, res)
		var v sigView
		Expect(json.Unmarshal(res.Value, &v)).To(Succeed(), "the cell's value must decode: %s", res)

		// Handles (§12.13): one per callable tool, none for the denied one.
		Expect(cmp.Diff([]string{lookupOrder, pingHost}, v.Names)).To(BeEmpty(), "catalog.all() must hold a handle for each allowed tool and none for the denied %s %s (-want +got): %s", wipeDisk, handleNamesNote, res)
		Expect(v.Lookup).NotTo(BeNil(), "catalog.all() must give a handle for %s: %s", lookupOrder, res)
		Expect(v.Ping).NotTo(BeNil(), "catalog.all() must give a handle for %s: %s", pingHost, res)
		Expect(v.Lookup.Type).To(Equal("function"), "a catalog handle must be callable: %s", res)
		Expect(v.Lookup.Frozen).To(BeTrue(), "a catalog handle must be frozen: %s", res)
		Expect(v.Lookup.Source).To(Equal(protocol.SourceOpenClaw), "the handle must name its source: %s", res)
		Expect(v.Lookup.Description).To(ContainSubstring("Look up an order"), "the handle must carry the tool's description: %s", res)
		Expect(v.Lookup.CallableName).To(Equal(lookupOrder), "a tool whose name is an identifier keeps it as its callable name: %s", res)
		expectMembers("the handle's input signature of "+lookupOrder, v.Lookup.Input, lookupInputMembers, res)
		Expect(v.Lookup.Output).NotTo(BeNil(), "the handle of %s, which declares an output schema, must carry an output signature: %s", lookupOrder, res)
		expectMembers("the handle's output signature of "+lookupOrder, *v.Lookup.Output, lookupOutputMembers, res)
		expectMembers("the handle's input signature of "+pingHost, v.Ping.Input, pingInputMembers, res)
		if v.Ping.Output != nil {
			Expect(noBlanks(*v.Ping.Output)).To(Equal("unknown"), "the handle of %s, which declares no output schema, must type its output unknown (or leave it unset), never a guess: %s", pingHost, res)
		}

		// The async global is the same handle, and calling it calls the tool.
		Expect(v.Global).NotTo(BeNil(), "the cell must find the global of %s: %s", lookupOrder, res)
		Expect(v.Global.Type).To(Equal("function"), "%s must be an async global function: %s", lookupOrder, res)
		Expect(v.Global.Same).To(BeTrue(), "the global %s must be the handle catalog.all() gives: %s", lookupOrder, res)
		Expect(JSONNormal(v.Called)).To(Equal(JSONNormal(map[string]any{"status": "open", "total": 12.5})), "calling the global %s must resolve with the tool's result: %s", lookupOrder, res)
		Expect(v.Searched).To(ContainElement(lookupOrder), "catalog.search must find %s by its description: %s", lookupOrder, res)

		// describe() exposes the declared schemas unchanged.
		Expect(cmp.Diff(JSONNormal(lookupInput), JSONNormal(v.Described["parameters"]))).To(BeEmpty(), "describe() must give the declared input schema as parameters (-want +got): %s", res)
		Expect(cmp.Diff(JSONNormal(lookupOutput), JSONNormal(v.Described["outputSchema"]))).To(BeEmpty(), "describe() must give the declared output schema as outputSchema (-want +got): %s", res)

		// Declarations: tools/<callableName>.d.ts, listed and readable.
		Expect(v.Paths).To(ContainElements("tools/"+lookupOrder+".d.ts", "tools/"+pingHost+".d.ts"), "API.list(\"tools\") must list a declaration per callable tool: %s", res)
		Expect(v.Paths).NotTo(ContainElement(ContainSubstring(wipeDisk)), "API.list must list no declaration of the denied %s: %s", wipeDisk, res)
		lookupDecl := declText("tools/"+lookupOrder+".d.ts", v.DeclLookup, res)
		Expect(noBlanks(lookupDecl)).To(ContainSubstring("function"+lookupOrder+"(input"), "the declaration must declare the function %s: %s", lookupOrder, lookupDecl)
		expectMembers("the declaration's input type of "+lookupOrder, lookupDecl, lookupInputMembers, res)
		Expect(noBlanks(lookupDecl)).To(ContainSubstring("Promise<{"), "the declaration of %s must return a Promise of its output type: %s", lookupOrder, lookupDecl)
		expectMembers("the declaration's output type of "+lookupOrder, lookupDecl[strings.Index(lookupDecl, "Promise<"):], lookupOutputMembers, res)
		pingDecl := declText("tools/"+pingHost+".d.ts", v.DeclPing, res)
		expectMembers("the declaration's input type of "+pingHost, pingDecl, pingInputMembers, res)
		Expect(noBlanks(pingDecl)).To(ContainSubstring("Promise<unknown>"), "the declaration of %s, which declares no output schema, must return Promise<unknown>: %s", pingHost, pingDecl)

		// Quick index: one line per tool, `- callableName input -> output`.
		index := execDescription(r)
		lookupLine := indexLine(index, lookupOrder)
		Expect(lookupLine).NotTo(BeNil(), "the exec description must end with a quick index line `- %s <input> -> <output>`:\n%s", lookupOrder, index)
		expectMembers("the quick index's input of "+lookupOrder, lookupLine[0], lookupInputMembers, res)
		expectMembers("the quick index's output of "+lookupOrder, lookupLine[1], lookupOutputMembers, res)
		pingLine := indexLine(index, pingHost)
		Expect(pingLine).NotTo(BeNil(), "the exec description must list %s in its quick index:\n%s", pingHost, index)
		expectMembers("the quick index's input of "+pingHost, pingLine[0], pingInputMembers, res)
		Expect(noBlanks(pingLine[1])).To(BeElementOf("unknown", "?"), "the quick index must type the output of %s, which declares no output schema, unknown (or `?`, if its heading says that `-> ?` means unknown output): %q", pingHost, pingLine)
		Expect(index).NotTo(ContainSubstring(wipeDisk), "the quick index must not list the denied %s:\n%s", wipeDisk, index)

		// No access through a declaration: the denied tool's path refuses,
		// and reading declarations makes nothing callable.
		Expect(v.DeclWipe).NotTo(BeNil(), "the cell must try to read the denied tool's declaration: %s", res)
		Expect(v.DeclWipe.Text).To(BeNil(), "API.read(\"tools/%s.d.ts\") must refuse the declaration of a denied tool, got the text %v: %s", wipeDisk, v.DeclWipe.Text, res)
		Expect(v.WipeGlobal).To(Equal("undefined"), "the denied %s must have no async global: %s", wipeDisk, res)
		Expect(v.WipeAfter).To(Equal("undefined"), "reading declarations must not define a global for the denied %s: %s", wipeDisk, res)
		Expect(v.SearchedWipe).NotTo(ContainElement(wipeDisk), "catalog.search must not find the denied %s: %s", wipeDisk, res)
		Expect(r.Tools.CallsOf(wipeDisk)).To(BeEmpty(), "the denied %s must never be invoked: %s", wipeDisk, res)
	})
})

// expectMembers requires every member of want (blanks dropped) in the
// signature sig, and no type any in it.
func expectMembers(what, sig string, want []string, res Result) {
	ginkgo.GinkgoHelper()
	got := noBlanks(sig)
	for _, m := range want {
		Expect(got).To(ContainSubstring(m), "%s must type the member %s from the schema, got %q: %s", what, m, sig, res)
	}
	Expect(anyType.MatchString(stripComments(sig))).To(BeFalse(), "%s must not type anything as any, got %q: %s", what, sig, res)
}

var comments = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)

// stripComments drops comments, whose prose may say "any".
func stripComments(s string) string { return comments.ReplaceAllString(s, "") }

// declText is the text API.read gave for path; the spec fails when it
// refused.
func declText(path string, d *sigDecl, res Result) string {
	ginkgo.GinkgoHelper()
	Expect(d).NotTo(BeNil(), "the cell must read %s: %s", path, res)
	Expect(d.Error).To(BeNil(), "API.read(%q) must give the declaration of a callable tool: %s", path, res)
	Expect(d.Text).NotTo(BeNil(), "API.read(%q) must resolve with the declaration text (a string, or a file object's content): %s", path, res)
	return *d.Text
}

// execDescription is the description of the run's model-visible exec tool.
func execDescription(r *Run) string {
	for _, t := range r.Prepared.Tools {
		if t.Name == "exec" {
			return t.Description
		}
	}
	return ""
}

// indexLine finds `- <name> <input> -> <output>` in the quick index and
// returns [input, output], or nil.
func indexLine(index, name string) []string {
	for _, l := range strings.Split(index, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(l), "- "+name+" ")
		if !ok {
			continue
		}
		if i := strings.LastIndex(rest, " -> "); i >= 0 {
			return []string{rest[:i], rest[i+4:]}
		}
	}
	return nil
}
