package catalog

import (
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// FuzzBuild: for any tool names and owners, catalog ids are unique, follow
// <source>:<owner>:<name>[~N], and do not depend on declaration order
// (CM-CAT-02, CM-CAT-07).
func FuzzBuild(f *testing.F) {
	f.Add("echo,add,echo", "core,core,core")
	f.Add("__proto__,constructor,toString", "p,p,p")
	f.Add("a:b,a,b:c", "x:y,x,y")
	f.Add("dup,dup~2,dup", "o,o,o")
	f.Add(",exec,wait", "core,core,plugin")
	f.Fuzz(func(t *testing.T, names, owners string) {
		ns, os := strings.Split(names, ","), strings.Split(owners, ",")
		sources := []string{protocol.SourceOpenClaw, protocol.SourcePlugin, protocol.SourceMCP, protocol.SourceClient}
		var specs []protocol.ToolSpec
		for i, n := range ns {
			specs = append(specs, protocol.ToolSpec{Name: n, Owner: os[i%len(os)], Source: sources[i%len(sources)]})
		}
		a := Build(specs)
		seen := map[string]bool{}
		for _, tl := range a.Tools {
			if seen[tl.ID] {
				t.Fatalf("duplicate id %q", tl.ID)
			}
			seen[tl.ID] = true
			base := tl.Spec.Source + ":" + tl.Spec.Owner + ":" + tl.Spec.Name
			if tl.ID != base && !strings.HasPrefix(tl.ID, base+"~") {
				t.Fatalf("id %q does not follow %q", tl.ID, base)
			}
			if got, ok := a.Lookup(tl.ID); !ok || got.ID != tl.ID {
				t.Fatalf("Lookup(%q) failed", tl.ID)
			}
		}
		rev := make([]protocol.ToolSpec, len(specs))
		for i, s := range specs {
			rev[len(specs)-1-i] = s
		}
		b := Build(rev)
		if len(a.Tools) != len(b.Tools) {
			t.Fatalf("reordering changed the catalog size: %d vs %d", len(a.Tools), len(b.Tools))
		}
		count := func(c *Catalog) map[string]int {
			m := map[string]int{}
			for _, tl := range c.Tools {
				m[tl.ID]++
			}
			return m
		}
		ca, cb := count(a), count(b)
		for id := range ca {
			if cb[id] != 1 {
				t.Fatalf("id %q exists for one declaration order only", id)
			}
		}
	})
}
