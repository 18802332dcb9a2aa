package mcp

import (
	"bytes"
	"encoding/json"
)

// object is a JSON object that keeps its key order, so declarations list
// properties in the order the schema gives them (as the seed's example does).
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

// decodeOrdered parses JSON keeping object key order. Later duplicate keys
// win, as in encoding/json.
func decodeOrdered(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return decodeValue(dec)
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &object{m: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := o.m[k]; !dup {
					o.keys = append(o.keys, k)
				}
				o.m[k] = v
			}
			_, err := dec.Token()
			return o, err
		case '[':
			var a []any
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
	case json.Number:
		f, err := t.Float64()
		return f, err
	}
	return tok, nil
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
