package diff

import (
	"encoding/json"
	"sort"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
)

// Observation is what one target answered for one cell: the final result
// after every waiting result was followed with wait, and the nested calls
// that reached the harness. Error is kept for people and never compared
// (its wording is the implementation's). NoAnswer is set, and Status is
// StatusNoAnswer, when the target did not answer a call of the cell.
type Observation struct {
	Status   string          `json:"status"`
	Code     string          `json:"code,omitempty"`
	Value    json.RawMessage `json:"value,omitempty"`
	Output   []result.Output `json:"output,omitempty"`
	Calls    []Call          `json:"calls,omitempty"`
	Error    string          `json:"error,omitempty"`
	NoAnswer string          `json:"noAnswer,omitempty"`
	// Expect is, for a corpus case, "met" when the final result meets the
	// case's expected outcome, else why not (corpus.Expect.Check); "" for a
	// plain cell. Never compared: it helps triage (two answers that both
	// meet it differ within what the case allows).
	Expect string `json:"expect,omitempty"`
}

// StatusNoAnswer is the Status of a cell the target did not answer.
const StatusNoAnswer = "no-answer"

// Call is one nested call that reached the harness (tool.invoke): the
// tool's name, source and owner and its input. Catalog and call ids are left
// out: they are each implementation's spelling.
type Call struct {
	Tool   string          `json:"tool"`
	Source string          `json:"source,omitempty"`
	Owner  string          `json:"owner,omitempty"`
	Input  json.RawMessage `json:"input,omitempty"`
}

// Fields are the compared fields of an Observation, in report order.
var Fields = []string{"status", "code", "value", "output", "calls"}

func observed(res result.Result, calls []protocol.InvokeParams) Observation {
	o := Observation{Status: string(res.Status), Code: string(res.Code), Value: res.Value, Output: res.Output, Error: res.Error}
	for _, c := range calls {
		o.Calls = append(o.Calls, Call{Tool: c.Tool, Source: c.Source, Owner: c.Owner, Input: c.Input})
	}
	return o
}

// field is one compared field as a plain JSON value (decoded, so key order
// and number spelling do not count). Calls are a multiset: concurrent
// calls reach the harness in any order.
func (o Observation) field(name string) any {
	switch name {
	case "status":
		return o.Status
	case "code":
		return o.Code
	case "value":
		return plain(o.Value)
	case "output":
		if len(o.Output) == 0 {
			return nil
		}
		b, _ := json.Marshal(o.Output)
		return plain(b)
	case "calls":
		if len(o.Calls) == 0 {
			return nil
		}
		keys := make([]string, len(o.Calls))
		for i, c := range o.Calls {
			b, _ := json.Marshal(map[string]any{"tool": c.Tool, "source": c.Source, "owner": c.Owner, "input": plain(c.Input)})
			keys[i] = string(b) // encoding/json sorts map keys: a canonical spelling
		}
		sort.Strings(keys)
		out := make([]any, len(keys))
		for i, k := range keys {
			out[i] = plain(json.RawMessage(k))
		}
		return out
	}
	return nil
}

// plain decodes JSON text; absent is nil, and text that does not decode is
// kept as a string.
func plain(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	return v
}
