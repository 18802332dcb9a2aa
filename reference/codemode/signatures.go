package codemode

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/codemode-conformance/codemode/reference/catalog"
	refmcp "github.com/codemode-conformance/codemode/reference/mcp"
	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// catalogSurface is generation 2's catalog surface of a run (feature
// javascript-only, CM-TS-06, spec/protocol.md §12.13): the guest entries
// with their callable names and TypeScript-style signatures (the handles
// and async globals of catalog.js), the tools/<callable>.d.ts declaration
// of each, and the quick index that ends the exec description. It holds
// only the run's catalog: a denied tool has no handle, no global and no
// declaration.
type catalogSurface struct {
	entries []prelude.Entry
	files   []prelude.MCPFile
	index   string

	guestOnce sync.Once
	guest     *prelude.CatalogIndex
}

// maxQuickIndexChars bounds the quick index, as OpenClaw 2026.9.6 does
// (MAX_CODE_MODE_CATALOG_INDEX_CHARS).
const maxQuickIndexChars = 8000

const quickIndexHeading = "Enabled async tool globals (descriptions are intentionally deferred):\n" +
	"Each line is `callableName input -> output`; an output without a declared schema is `unknown`. " +
	"catalog.all() and catalog.search(query) give the same callable handles (callableName, toolName, description, source, input, output, describe()); " +
	"API.read(\"tools/<callableName>.d.ts\") gives a tool's declaration."

// newCatalogSurface builds the catalog surface of c; reserved are names no
// callable may take (the run's namespace globals). prev is the surface c
// replaces (run.update; nil at prepare): the tools that stay keep their
// callable names (§12.13), which the exec description of prepare lists.
func (o Options) newCatalogSurface(c *catalog.Catalog, reserved []string, prev *catalogSurface) *catalogSurface {
	var kept map[string]string
	if prev != nil {
		kept = make(map[string]string, len(prev.entries))
		for _, e := range prev.entries {
			kept[e.ID] = e.CallableName
		}
	}
	names := c.CallableNamesKeeping(kept, reserved...)
	s := &catalogSurface{}
	var lines []indexLine
	for _, e := range c.GuestEntries() {
		t, _ := c.Lookup(e.ID)
		e.CallableName = names[e.ID]
		e.Input = refmcp.InputSignature(t.Spec.Parameters)
		e.Output = refmcp.OutputSignature(t.Spec.OutputSchema)
		e.OutputSchema = t.Spec.OutputSchema
		decl := refmcp.ToolDeclaration(e.CallableName, t.Spec.Name, e.ID, t.Spec.Description, t.Spec.Parameters, t.Spec.OutputSchema)
		if o.Defects.AnyOutputs && e.Output == "unknown" {
			e.Output = "any"
			decl = strings.Replace(decl, "): Promise<unknown>;", "): Promise<any>;", 1)
		}
		s.entries = append(s.entries, e)
		s.files = append(s.files, prelude.MCPFile{Path: "tools/" + e.CallableName + ".d.ts", Bytes: len(decl), Text: decl})
		lines = append(lines, indexLine{typed: len(t.Spec.OutputSchema) > 0, name: e.CallableName, text: "- " + e.CallableName + " " + e.Input + " -> " + e.Output})
	}
	sort.Slice(s.files, func(i, j int) bool { return s.files[i].Path < s.files[j].Path })
	s.index = quickIndex(lines)
	return s
}

type indexLine struct {
	typed      bool
	name, text string
}

// quickIndex is the bounded index of the async tool globals: tools with a
// declared output first, then by callable name; lines that would take the
// index past maxQuickIndexChars are left out and the footer counts them.
func quickIndex(lines []indexLine) string {
	if len(lines) == 0 {
		return ""
	}
	sort.Slice(lines, func(i, j int) bool {
		if lines[i].typed != lines[j].typed {
			return lines[i].typed
		}
		return lines[i].name < lines[j].name
	})
	footer := func(included int) string {
		if omitted := len(lines) - included; omitted > 0 {
			return strconv.Itoa(omitted) + " additional tools omitted from this index. Use catalog.search(query); results are callable."
		}
		return "Call these globals directly; use catalog.search(query) when lookup is ambiguous."
	}
	var kept []string
	size := len(quickIndexHeading)
	for _, l := range lines {
		if size+1+len(l.text)+2+len(footer(len(kept)+1)) > maxQuickIndexChars {
			continue
		}
		kept = append(kept, l.text)
		size += 1 + len(l.text)
	}
	return quickIndexHeading + "\n" + strings.Join(kept, "\n") + "\n\n" + footer(len(kept))
}

// prepareCatalogSurface builds the run's catalog surface under feature
// javascript-only and ends the exec description with its quick index. all
// are the run's tools before policy, read only by Defects.DeclareDenied.
func (rt *Runtime) prepareCatalogSurface(r *agentRun, surface []protocol.ModelTool, all []protocol.ToolSpec) {
	if !rt.opts.HasFeature("javascript-only") {
		return
	}
	r.surface = rt.opts.newCatalogSurface(r.catalog(), r.reservedGlobals(), nil)
	if rt.opts.Defects.DeclareDenied {
		r.surface.declareDenied(r.catalog(), all)
	}
	if r.surface.index == "" {
		return
	}
	for i := range surface {
		if surface[i].Name == "exec" {
			surface[i].Description += "\n\n" + r.surface.index
		}
	}
}

// reservedGlobals are the global names of the run's visible namespaces,
// which no callable name may take.
func (r *agentRun) reservedGlobals() []string {
	var reserved []string
	if r.spaces != nil {
		for _, ns := range r.spaces.Visible {
			reserved = append(reserved, ns.Descriptor.GlobalName)
		}
	}
	return reserved
}

// guestEntries are the catalog entries a cell boots with: with their
// callable names and signatures under the catalog surface sf, or cat's
// plain entries without one (no javascript-only).
func guestEntries(sf *catalogSurface, cat *catalog.Catalog) []prelude.Entry {
	if sf != nil {
		return sf.entries
	}
	return cat.GuestEntries()
}

// MaxCallableGlobals bounds the callable entries of generation 2's catalog
// surface. Each is an async global and a frozen handle in every cell's VM,
// made at boot (catalog.js: the engine has no lazy globals), so each costs
// VM memory, boot time and snapshot bytes; a bigger catalog is refused at
// prepare with an error naming its size (issue 28 N3) instead of failing
// every cell. Generation 1's surface keeps the catalog on the host and has
// no such bound.
const MaxCallableGlobals = 2000

// tooLarge is the prepare failure of a surface with more callable entries
// than MaxCallableGlobals, or nil.
func (s *catalogSurface) tooLarge() *protocol.Failure {
	if s == nil {
		return nil
	}
	n := 0
	for i := range s.entries {
		if s.entries[i].CallableName != "" {
			n++
		}
	}
	if n <= MaxCallableGlobals {
		return nil
	}
	return &protocol.Failure{Code: "runtime_unavailable", Error: fmt.Sprintf("the run's catalog has %d tools; this runtime's generation-2 catalog surface (an async global and a handle per tool in every cell) serves at most %d; prepare fewer tools", n, MaxCallableGlobals)}
}

// guestIndex is guestEntries indexed for the guest's catalog queries, built
// once per catalog or surface and shared by its cells (issue 28 N3).
func guestIndex(sf *catalogSurface, cat *catalog.Catalog) *prelude.CatalogIndex {
	if sf != nil {
		sf.guestOnce.Do(func() { sf.guest = prelude.NewCatalogIndex(sf.entries) })
		return sf.guest
	}
	if cat == nil {
		return prelude.NewCatalogIndex(nil)
	}
	return cat.GuestIndex()
}

// apiFiles are the declarations API.read serves beside the MCP files (none
// without a catalog surface).
func (sf *catalogSurface) apiFiles() []prelude.MCPFile {
	if sf == nil {
		return nil
	}
	return sf.files
}

// declareDenied is the defect Defects.DeclareDenied: a declaration for
// every tool outside the catalog, as if reading one were harmless.
func (s *catalogSurface) declareDenied(c *catalog.Catalog, all []protocol.ToolSpec) {
	in := map[string]bool{}
	for _, t := range c.Tools {
		in[t.Spec.Source+":"+t.Spec.Owner+":"+t.Spec.Name] = true
	}
	for _, t := range all {
		if in[t.Source+":"+t.Owner+":"+t.Name] {
			continue
		}
		decl := refmcp.ToolDeclaration(t.Name, t.Name, t.Source+":"+t.Owner+":"+t.Name, t.Description, t.Parameters, t.OutputSchema)
		s.files = append(s.files, prelude.MCPFile{Path: "tools/" + t.Name + ".d.ts", Bytes: len(decl), Text: decl})
	}
}
