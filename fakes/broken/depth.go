package broken

import (
	"encoding/json"
)

func init() {
	Variants = append(Variants, Variant{Name: "depth-cut-silently", Breaks: "CM-LIM-10", Spec: "tool result nested 5000 deep",
		Defect: `a tool result nested deeper than 64 levels reaches the guest as the string "[MaxDepth]" instead of an error`,
		Serve:  cuttingDeepResults()})
}

// cuttingDeepResults: the target cuts a deep tool result short without a
// word, as the reference's prelude did with guest values deeper than 64
// ("[MaxDepth]"). The proxy replaces the result of every tool.invoke answer
// nested deeper than 64 levels before the reference sees it.
func cuttingDeepResults() serveFunc {
	return lineProxy(func(l lines, b []byte) {
		var m rpc
		if json.Unmarshal(b, &m) == nil && m.Method == "" && len(m.Result) > 0 {
			var r struct {
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal(m.Result, &r) == nil && nesting(r.Result) > 64 {
				b, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"result": "[MaxDepth]"}})
			}
		}
		l.toReference(b)
	}, func(l lines, b []byte) { l.toHarness(b) })
}

// nesting is the deepest nesting of arrays and objects in raw (brackets in
// strings included: the variant only needs to see the specs' arrays).
func nesting(raw []byte) int {
	d, deepest := 0, 0
	for _, c := range raw {
		switch c {
		case '[', '{':
			d++
			deepest = max(deepest, d)
		case ']', '}':
			d--
		}
	}
	return deepest
}
