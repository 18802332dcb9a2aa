// Package schema holds a JSON Schema per driver protocol message
// (spec/protocol.md §3-§4), generated from the Go types of spec/protocol and
// spec/result (Generate) and committed as spec/schema/*.json, which
// schema_test.go keeps equal to the generation. A schema gives the members a
// message's Go type requires (a field without omitempty) and each member's
// JSON type; members the type does not know are allowed.
package schema

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/google/jsonschema-go/jsonschema"
)

// Message is one schema: the file it is committed as and the Go type of
// the message's params or result.
type Message struct {
	File string
	Type reflect.Type
}

// Messages lists every message with a schema, by file name.
var Messages = []Message{
	{"initialize.params.json", reflect.TypeFor[protocol.InitializeParams]()},
	{"initialize.result.json", reflect.TypeFor[protocol.InitializeResult]()},
	{"run.prepare.params.json", reflect.TypeFor[protocol.PrepareParams]()},
	{"run.prepare.result.json", reflect.TypeFor[protocol.PrepareResult]()},
	{"tool.exec.params.json", reflect.TypeFor[protocol.ToolCallParams]()},
	{"tool.wait.params.json", reflect.TypeFor[protocol.ToolCallParams]()},
	{"tool.result.json", reflect.TypeFor[result.Result]()}, // the result of tool.exec and tool.wait
	{"tool.invoke.params.json", reflect.TypeFor[protocol.InvokeParams]()},
	{"tool.invoke.result.json", reflect.TypeFor[protocol.InvokeResult]()},
	{"run.params.json", reflect.TypeFor[protocol.RunParams]()}, // run.abort, run.end
	{"runtime.stats.result.json", reflect.TypeFor[protocol.Stats]()},
}

//go:embed *.json
var committed embed.FS

// Generate returns the schema of m as indented JSON with a trailing newline.
func Generate(m Message) ([]byte, error) {
	raw := &jsonschema.Schema{} // json.RawMessage: any JSON value
	s, err := jsonschema.ForType(m.Type, &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): raw}})
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", m.File, err)
	}
	allowExtra(s)
	s.Schema = "https://json-schema.org/draft/2020-12/schema"
	s.ID = "https://codemode-conformance.dev/spec/schema/" + m.File
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// allowExtra drops the additionalProperties: false For sets on structs:
// the protocol's Go types do not say that other members are forbidden.
func allowExtra(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if s.AdditionalProperties != nil && reflect.DeepEqual(s.AdditionalProperties, &jsonschema.Schema{Not: &jsonschema.Schema{}}) {
		s.AdditionalProperties = nil
	}
	keys := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		allowExtra(s.Properties[k])
	}
	allowExtra(s.Items)
	allowExtra(s.AdditionalProperties)
	for _, t := range s.AnyOf {
		allowExtra(t)
	}
}

// Committed returns the committed schema file name.
func Committed(name string) ([]byte, error) { return committed.ReadFile(name) }

// Validate checks a message's params or result (raw JSON) against the
// committed schema file name; the error names the violated schema path.
func Validate(name string, raw []byte) error {
	b, err := committed.ReadFile(name)
	if err != nil {
		return err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("schema %s: %w", name, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return fmt.Errorf("schema %s: %w", name, err)
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := rs.Validate(jsonNumbers(v)); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// jsonNumbers turns json.Number into float64 or int64 for the validator.
func jsonNumbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case map[string]any:
		for k, e := range t {
			t[k] = jsonNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = jsonNumbers(e)
		}
	}
	return v
}
