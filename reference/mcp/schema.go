package mcp

import (
	"encoding/json"
	"sort"
)

// object is a decoded JSON schema object. Its keys are sorted: JSON object
// order does not survive every MCP client (the Go SDK's client holds a
// listed tool's schema as a map), so nothing here may depend on it.
type object struct {
	keys []string
	m    map[string]any // values: *object, []any, string, float64, bool, nil
}

func (o *object) get(k string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.m[k]
	return v, ok
}

func (o *object) str(k string) string {
	v, _ := o.get(k)
	s, _ := v.(string)
	return s
}

func (o *object) obj(k string) *object {
	v, _ := o.get(k)
	m, _ := v.(*object)
	return m
}

// decodeSchema parses JSON into objects with sorted keys.
func decodeSchema(raw []byte) (any, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return wrapObjects(v), nil
}

func wrapObjects(v any) any {
	switch t := v.(type) {
	case map[string]any:
		o := &object{m: make(map[string]any, len(t))}
		for k, x := range t {
			o.keys = append(o.keys, k)
			o.m[k] = wrapObjects(x)
		}
		sort.Strings(o.keys)
		return o
	case []any:
		for i, x := range t {
			t[i] = wrapObjects(x)
		}
		return t
	}
	return v
}

// plain turns decoded values back into encoding/json's types, for output.
func plain(v any) any {
	switch t := v.(type) {
	case *object:
		m := map[string]any{}
		for k, x := range t.m {
			m[k] = plain(x)
		}
		return m
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = plain(x)
		}
		return out
	}
	return v
}
