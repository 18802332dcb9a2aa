package namespaces

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Descriptor is a visible namespace as the guest prelude receives it: plain
// JSON Value (members in declaration order) with null at each callable, and
// the paths (segments) of the callables the prelude installs there.
type Descriptor struct {
	ID         string     `json:"id"`
	GlobalName string     `json:"globalName"`
	Value      any        `json:"value"`
	Callables  [][]string `json:"callables"`
}

// Bounds of a scope description: a few shared references can expand a
// small description into a huge tree.
const (
	maxScopeNodes = 100000
	maxScopeDepth = 64
)

// object is a JSON object with its members in order.
type object []member

type member struct {
	key string
	val any
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(m.val)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (o object) get(k string) (any, bool) {
	for _, m := range o {
		if m.key == k {
			return m.val, true
		}
	}
	return nil, false
}

// decodeOrdered parses raw keeping member order and numbers exact.
func decodeOrdered(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxScopeDepth {
		return nil, fmt.Errorf("nested deeper than %d", maxScopeDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	switch d {
	case '{':
		o := object{}
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			if seen[k] {
				return nil, fmt.Errorf("duplicate member %q", k)
			}
			seen[k] = true
			v, err := decodeValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			o = append(o, member{k, v})
		}
		_, err := dec.Token()
		return o, err
	case '[':
		a := []any{}
		for dec.More() {
			v, err := decodeValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return nil, fmt.Errorf("unexpected %v", d)
}

// omitted is a serialised undefined: left out of objects, null in arrays.
type omittedT struct{}

var omitted = omittedT{}

// serializer turns one registration's scope into a Descriptor for one run:
// createScope(ctx) as data (CM-NS-04, CM-NS-07, CM-NS-08).
type serializer struct {
	reg       protocol.NamespaceRegistration
	ctx       Context
	instance  string
	shared    map[string]any
	required  map[string]bool
	expanding map[string]bool // refs on the current path: a repeat is a cycle
	nodes     int
	callables map[string]callable
	paths     [][]string
}

// callable is a tool marker: the tool it runs and how guest arguments
// become its input.
type callable struct {
	tool   string
	mapper protocol.InputMapper
}

// serialize builds the descriptor, or fails with one of the scope errors.
func (s *serializer) serialize() (Descriptor, error) {
	s.shared = map[string]any{}
	for k, raw := range s.reg.Shared {
		v, err := decodeOrdered(raw)
		if err != nil {
			return Descriptor{}, fmt.Errorf("%w: shared %q: %v", ErrBadScope, k, err)
		}
		s.shared[k] = v
	}
	root, err := decodeOrdered(s.reg.Scope)
	if err != nil {
		return Descriptor{}, fmt.Errorf("%w: scope: %v", ErrBadScope, err)
	}
	s.required = map[string]bool{}
	for _, n := range s.reg.RequiredToolNames {
		s.required[n] = true
	}
	s.expanding = map[string]bool{}
	s.callables = map[string]callable{}
	v, err := s.walk(root, nil)
	if err != nil {
		return Descriptor{}, err
	}
	if _, ok := v.(object); !ok {
		return Descriptor{}, fmt.Errorf("%w: createScope must return an object", ErrBadScope)
	}
	return Descriptor{ID: s.reg.ID, GlobalName: s.reg.GlobalName, Value: v, Callables: s.paths}, nil
}

func at(path []string) string {
	if len(path) == 0 {
		return "the scope"
	}
	return fmt.Sprintf("path %q", strings.Join(path, protocol.NamespacePathSeparator))
}

// unsafeSegment reports why key cannot be a path segment, or "".
func unsafeSegment(key string) string {
	switch {
	case key == "__proto__" || key == "constructor" || key == "prototype":
		return fmt.Sprintf("key %q is reserved", key)
	case key == "":
		return "a key is empty"
	case strings.Contains(key, protocol.NamespacePathSeparator):
		return fmt.Sprintf("key %q contains the path separator %q", key, protocol.NamespacePathSeparator)
	}
	return ""
}

func (s *serializer) walk(v any, path []string) (any, error) {
	s.nodes++
	if s.nodes > maxScopeNodes {
		return nil, fmt.Errorf("%w: more than %d values", ErrBadScope, maxScopeNodes)
	}
	if len(path) > maxScopeDepth {
		return nil, fmt.Errorf("%w: deeper than %d at %s", ErrBadScope, maxScopeDepth, at(path))
	}
	switch x := v.(type) {
	case object:
		if kind, ok := x.get(protocol.MarkerKey); ok {
			return s.marker(x, kind, path)
		}
		out := object{}
		for _, m := range x {
			if why := unsafeSegment(m.key); why != "" {
				return nil, fmt.Errorf("%w at %s: %s", ErrUnsafeSegment, at(path), why)
			}
			c, err := s.walk(m.val, append(path[:len(path):len(path)], m.key))
			if err != nil {
				return nil, err
			}
			if c == omitted {
				continue
			}
			out = append(out, member{m.key, c})
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := s.walk(e, append(path[:len(path):len(path)], fmt.Sprint(i)))
			if err != nil {
				return nil, err
			}
			if c == omitted {
				c = nil
			}
			out[i] = c
		}
		return out, nil
	default:
		return x, nil
	}
}

func str(o object, k string) string {
	v, _ := o.get(k)
	s, _ := v.(string)
	return s
}

func (s *serializer) marker(o object, kind any, path []string) (any, error) {
	switch kind {
	case protocol.MarkerFunction:
		return nil, fmt.Errorf("%w at %s (%q): expose domain verbs with a tool marker (createCodeModeNamespaceTool), never a host function", ErrRawFunction, at(path), str(o, "name"))
	case protocol.MarkerTool:
		if len(path) == 0 {
			return nil, fmt.Errorf("%w: the scope itself cannot be a callable", ErrBadScope)
		}
		tool := str(o, "tool")
		if !s.required[tool] {
			return nil, fmt.Errorf("%w: %s targets %q, requiredToolNames are %q", ErrUndeclaredTool, at(path), tool, s.reg.RequiredToolNames)
		}
		m := protocol.InputMapper{Kind: protocol.MapperFirst}
		if raw, ok := o.get("input"); ok && raw != nil {
			mo, ok := raw.(object)
			if !ok {
				return nil, fmt.Errorf("%w: the input mapper at %s is not an object", ErrBadScope, at(path))
			}
			m.Kind = str(mo, "kind")
			if names, ok := mo.get("names"); ok {
				arr, _ := names.([]any)
				for _, n := range arr {
					ns, ok := n.(string)
					if !ok || ns == "" {
						return nil, fmt.Errorf("%w: the positional mapper at %s has a name that is not a non-empty string", ErrBadScope, at(path))
					}
					m.Names = append(m.Names, ns)
				}
			}
			if m.Kind != protocol.MapperFirst && m.Kind != protocol.MapperPositional {
				return nil, fmt.Errorf("%w: unknown input mapper kind %q at %s", ErrBadScope, m.Kind, at(path))
			}
		}
		key := strings.Join(path, protocol.NamespacePathSeparator)
		s.callables[key] = callable{tool: tool, mapper: m}
		s.paths = append(s.paths, append([]string(nil), path...))
		return nil, nil
	case protocol.MarkerRef:
		name := str(o, "name")
		node, ok := s.shared[name]
		if !ok {
			return nil, fmt.Errorf("%w: %s refers to shared %q, which does not exist", ErrBadScope, at(path), name)
		}
		if s.expanding[name] {
			return nil, fmt.Errorf("%w: %s refers back to shared %q, which contains it", ErrCycle, at(path), name)
		}
		s.expanding[name] = true
		defer delete(s.expanding, name)
		return s.walk(node, path)
	case protocol.MarkerContext:
		switch k := str(o, "key"); k {
		case protocol.ContextAgentID:
			return s.ctx.AgentID, nil
		case protocol.ContextSessionKey:
			return s.ctx.SessionKey, nil
		case protocol.ContextSessionID:
			return s.ctx.SessionID, nil
		case protocol.ContextRunID:
			return s.ctx.RunID, nil
		case protocol.ContextAborted:
			return s.ctx.Aborted, nil
		case protocol.ContextInstance:
			return s.instance, nil
		case protocol.ContextConfig:
			if len(s.reg.Config) == 0 {
				return nil, nil
			}
			v, err := decodeOrdered(s.reg.Config)
			if err != nil {
				return nil, fmt.Errorf("%w: config: %v", ErrBadScope, err)
			}
			return v, nil
		default:
			return nil, fmt.Errorf("%w: unknown context key %q at %s", ErrBadScope, k, at(path))
		}
	case protocol.MarkerNonJSON:
		text := str(o, "text")
		switch t := str(o, "type"); t {
		case protocol.NonJSONUndefined:
			return omitted, nil
		case protocol.NonJSONNaN, protocol.NonJSONInfinity:
			return nil, nil
		case protocol.NonJSONBigInt, protocol.NonJSONDate, protocol.NonJSONSymbol:
			return text, nil
		case protocol.NonJSONBinary:
			return "[Binary data is not supported]", nil
		case protocol.NonJSONInstance:
			return "[" + text + " instance]", nil
		default:
			return nil, fmt.Errorf("%w: unknown nonJson type %q at %s", ErrBadScope, t, at(path))
		}
	}
	return nil, fmt.Errorf("%w: unknown marker %v at %s", ErrBadScope, kind, at(path))
}
