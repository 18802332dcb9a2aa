package broken

import (
	"encoding/json"
	"sync"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// The malformed-result variant: a target whose exec/wait results leave out
// the telemetry member result.Result always carries (spec/protocol.md §4,
// CM-EXEC-05), as an adapter that builds its result by hand and forgets
// it would. --validate-protocol catches it at the first result, naming
// spec/schema/tool.result.json and the path.
func init() {
	Variants = append(Variants, Variant{Name: "malformed-result", Breaks: "CM-EXEC-05",
		Defect: "exec/wait results leave out the required telemetry member", Serve: malformedResults()})
}

func malformedResults() serveFunc {
	var mu sync.Mutex
	cells := map[string]bool{} // ids of the harness's tool.exec/tool.wait requests, until answered
	return lineProxy(func(l lines, b []byte) {
		var m rpc
		if json.Unmarshal(b, &m) == nil && (m.Method == protocol.MethodToolExec || m.Method == protocol.MethodToolWait) && len(m.ID) > 0 {
			mu.Lock()
			cells[string(m.ID)] = true
			mu.Unlock()
		}
		l.toReference(b)
	}, func(l lines, b []byte) {
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil || m["method"] != nil || m["result"] == nil {
			l.toHarness(b)
			return
		}
		mu.Lock()
		cell := cells[string(m["id"])]
		delete(cells, string(m["id"]))
		mu.Unlock()
		var res map[string]json.RawMessage
		if !cell || json.Unmarshal(m["result"], &res) != nil {
			l.toHarness(b)
			return
		}
		delete(res, "telemetry")
		m["result"], _ = json.Marshal(res)
		out, _ := json.Marshal(m)
		l.toHarness(out)
	})
}
