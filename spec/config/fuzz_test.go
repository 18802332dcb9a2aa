package config

import (
	"encoding/json"
	"testing"
)

// FuzzResolve: any tools.codeMode value resolves or fails with *Error, never
// panics, and an enabled result always honours every clamp (CM-CFG-04/05/06).
func FuzzResolve(f *testing.F) {
	for _, seed := range []string{`true`, `false`, `null`, `{}`, `{"enabled":true}`, `{"enabled":true,"timeoutMs":1e300}`,
		`{"enabled":true,"maxSearchLimit":0,"searchDefaultLimit":99}`, `{"enabled":true,"languages":["typescript"]}`,
		`{"enabled":true,"runtime":"node"}`, `{"enabled":true,"memoryLimitBytes":-5,"maxPendingToolCalls":"x"}`, `[1,2]`, `"on"`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, err := Resolve(json.RawMessage(raw))
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Resolve(%s) returned %T, want *config.Error", raw, err)
			}
			return
		}
		if !c.Enabled {
			return
		}
		for _, l := range Limits {
			v := *c.field(l.Name)
			if v < l.Min || (l.Max > 0 && v > l.Max) {
				t.Fatalf("Resolve(%s): %s = %d outside [%d, %d]", raw, l.Name, v, l.Min, l.Max)
			}
		}
		if c.SearchDefaultLimit > c.MaxSearchLimit {
			t.Fatalf("Resolve(%s): searchDefaultLimit %d > maxSearchLimit %d", raw, c.SearchDefaultLimit, c.MaxSearchLimit)
		}
		if len(c.Languages) == 0 {
			t.Fatalf("Resolve(%s): no languages", raw)
		}
		for _, lang := range c.Languages {
			if lang != "javascript" && lang != "typescript" {
				t.Fatalf("Resolve(%s): language %q", raw, lang)
			}
		}
	})
}
