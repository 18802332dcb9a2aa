// Package catalog builds a run's hidden tool catalog: the effective tools after
// allow/deny policy, minus code mode control tools, each with a catalog id
// `<source>:<owner>:<tool-name>` (CM-ACT-04, CM-CAT-01..03, CM-CAT-07).
package catalog

import (
	"fmt"
	"sort"
	"sync"

	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// ControlTools are never catalogued: code mode's own exec/wait and the Tool
// Search control tools (CM-CAT-03). A core `exec` is the shell exec tool and is
// catalogued (CM-CAT-04).
var ControlTools = []string{"exec", "wait", "tool_search_code", "tool_search", "tool_describe", "tool_call"}

// Tool is one catalog entry and the harness tool behind it.
type Tool struct {
	ID   string
	Spec protocol.ToolSpec
}

// Catalog is a run's catalog in id order.
type Catalog struct {
	Tools []Tool
	byID  map[string]*Tool

	guestOnce sync.Once
	guest     *prelude.CatalogIndex
}

// Effective applies policy: raw runs, disableTools and an empty allowlist yield
// no tools (CM-ACT-03); deny wins over allow; an entry matches a tool by name,
// by owner (plugin id) or by its `source:owner` pair.
func Effective(p protocol.PrepareParams) []protocol.ToolSpec {
	if p.Raw || p.DisableTools {
		return nil
	}
	var out []protocol.ToolSpec
	for _, t := range p.Tools {
		if p.Policy != nil {
			if p.Policy.Allow != nil && !matches(p.Policy.Allow, t) {
				continue
			}
			if matches(p.Policy.Deny, t) {
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

func matches(list []string, t protocol.ToolSpec) bool {
	for _, x := range list {
		if x == t.Name || x == t.Owner || x == t.Source+":"+t.Owner || x == t.Source+":"+t.Owner+":"+t.Name {
			return true
		}
	}
	return false
}

// IsControl reports whether t is a code mode control tool that the catalog
// omits.
func IsControl(t protocol.ToolSpec) bool {
	for _, n := range ControlTools {
		if t.Name == n {
			return !(n == "exec" && t.Source == protocol.SourceOpenClaw && t.Owner == "core")
		}
	}
	return false
}

// Build catalogs the effective tools. IDs are deterministic for equivalent tool
// sets: tools are sorted by (source, owner, name) and a repeated id gets a
// `~N` suffix in that order.
func Build(effective []protocol.ToolSpec) *Catalog {
	specs := make([]protocol.ToolSpec, 0, len(effective))
	for _, t := range effective {
		if !IsControl(t) {
			specs = append(specs, t)
		}
	}
	sort.SliceStable(specs, func(i, j int) bool {
		a, b := specs[i], specs[j]
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		if a.Owner != b.Owner {
			return a.Owner < b.Owner
		}
		return a.Name < b.Name
	})
	c := &Catalog{byID: map[string]*Tool{}}
	// next is the next suffix to try per base id: each suffix is tried at
	// most once, so many tools of one id cost linear time, not quadratic.
	next := map[string]int{}
	for _, t := range specs {
		base := t.Source + ":" + t.Owner + ":" + t.Name
		id := base
		if c.byID[id] != nil {
			n := max(next[base], 2)
			for id = fmt.Sprintf("%s~%d", base, n); c.byID[id] != nil; id = fmt.Sprintf("%s~%d", base, n) {
				n++
			}
			next[base] = n + 1
		}
		c.Tools = append(c.Tools, Tool{ID: id, Spec: t})
		c.byID[id] = &c.Tools[len(c.Tools)-1]
	}
	// Re-point the index at the final backing array.
	for i := range c.Tools {
		c.byID[c.Tools[i].ID] = &c.Tools[i]
	}
	return c
}

// Lookup finds a tool by catalog id.
func (c *Catalog) Lookup(id string) (*Tool, bool) {
	t, ok := c.byID[id]
	return t, ok
}

// GuestEntries are the entries the guest sees: every non-MCP tool with its
// schema (CM-GUEST-02, CM-CAT-05).
func (c *Catalog) GuestEntries() []prelude.Entry {
	out := make([]prelude.Entry, 0, len(c.Tools))
	for _, t := range c.Tools {
		if t.Spec.Source == protocol.SourceMCP {
			continue
		}
		e := prelude.Entry{ID: t.ID, Name: t.Spec.Name, Label: t.Spec.Label, Description: t.Spec.Description,
			Source: t.Spec.Source, Parameters: t.Spec.Parameters}
		if t.Spec.Source != protocol.SourceOpenClaw {
			e.SourceName = t.Spec.Owner
		}
		out = append(out, e)
	}
	return out
}

// GuestIndex is GuestEntries indexed for the guest's catalog queries,
// built once per catalog (prelude.CatalogIndex, issue 28 N3).
func (c *Catalog) GuestIndex() *prelude.CatalogIndex {
	c.guestOnce.Do(func() { c.guest = prelude.NewCatalogIndex(c.GuestEntries()) })
	return c.guest
}

// Sources counts catalog entries by source (telemetry, CM-TEL-01).
func (c *Catalog) Sources() map[string]int {
	m := map[string]int{}
	for _, t := range c.Tools {
		m[t.Spec.Source]++
	}
	return m
}
