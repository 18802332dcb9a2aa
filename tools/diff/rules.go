package diff

import (
	_ "embed"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
)

// defaultRules is rules.yaml, the rules used without --rules.
//
//go:embed rules.yaml
var defaultRules []byte

// Rule is one shape-only rule (see rules.yaml for the kinds).
type Rule struct {
	Name  string   `yaml:"name" json:"name"`
	Kind  string   `yaml:"kind" json:"kind"`
	Field string   `yaml:"field" json:"field"`
	Keys  []string `yaml:"keys" json:"keys,omitempty"`
	Take  []string `yaml:"take" json:"take,omitempty"`
	Codes []string `yaml:"codes" json:"codes,omitempty"`
	Note  string   `yaml:"note" json:"note"`
}

// Rules are the shape-only rules of a run, in file order.
type Rules []Rule

// DefaultRules are the committed rules (rules.yaml).
func DefaultRules() Rules {
	r, err := ParseRules(defaultRules)
	if err != nil {
		panic(err) // the embedded file is tested
	}
	return r
}

// LoadRules reads a rules file.
func LoadRules(path string) (Rules, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := ParseRules(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// ParseRules parses rules YAML ({rules: [...]}); unknown keys, a missing
// name or note, an unknown kind or a field the kind does not apply to are
// errors.
func ParseRules(b []byte) (Rules, error) {
	var doc struct {
		Rules Rules `yaml:"rules"`
	}
	if err := yaml.UnmarshalWithOptions(b, &doc, yaml.Strict()); err != nil {
		return nil, fmt.Errorf("rules: %s", yaml.FormatError(err, false, false))
	}
	seen := map[string]bool{}
	for i, r := range doc.Rules {
		bad := func(why string) error { return fmt.Errorf("rules[%d] %q: %s", i, r.Name, why) }
		switch {
		case r.Name == "" || seen[r.Name]:
			return nil, bad("needs a name of its own")
		case strings.TrimSpace(r.Note) == "":
			return nil, bad("needs a note saying why the two shapes mean the same")
		case r.Kind == "unwrap" && (r.Field != "value" && r.Field != "output" || len(r.Keys) == 0 || len(r.Take) == 0):
			return nil, bad("unwrap needs field value or output, keys and take")
		case r.Kind == "alias" && (r.Field != "code" || len(r.Codes) < 2):
			return nil, bad("alias needs field code and at least two codes")
		case r.Kind == "joinText" && r.Field != "output":
			return nil, bad("joinText needs field output")
		case r.Kind != "unwrap" && r.Kind != "alias" && r.Kind != "joinText":
			return nil, bad("kind must be unwrap, alias or joinText")
		}
		seen[r.Name] = true
	}
	return doc.Rules, nil
}

// apply returns v (a plain field value of r.Field) rewritten by r.
func (r Rule) apply(v any) any {
	switch r.Kind {
	case "alias":
		if s, ok := v.(string); ok && slices.Contains(r.Codes, s) {
			return r.Codes[0]
		}
		return v
	case "joinText":
		return joinText(v)
	}
	return r.unwrap(v)
}

func (r Rule) unwrap(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = r.unwrap(e)
		}
		return out
	case map[string]any:
		if len(x) == len(r.Keys) && hasKeys(x, r.Keys) {
			if got, ok := at(x, r.Take); ok {
				return r.unwrap(got)
			}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = r.unwrap(e)
		}
		return out
	}
	return v
}

func hasKeys(m map[string]any, keys []string) bool {
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

func at(v any, path []string) (any, bool) {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// joinText merges consecutive {type: text, text} items of an output list.
func joinText(v any) any {
	items, ok := v.([]any)
	if !ok {
		return v
	}
	var out []any
	for _, it := range items {
		m, _ := it.(map[string]any)
		t, isText := m["text"].(string)
		if isText && m["type"] == "text" && len(out) > 0 {
			if prev, _ := out[len(out)-1].(map[string]any); prev["type"] == "text" {
				if pt, ok := prev["text"].(string); ok {
					out[len(out)-1] = map[string]any{"type": "text", "text": pt + t}
					continue
				}
			}
		}
		out = append(out, it)
	}
	return out
}
