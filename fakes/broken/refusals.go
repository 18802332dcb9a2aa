package broken

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// The refusals-outside-union variant: an exec or wait the target refuses is
// answered {status: "error", tool, error}, outside the completed/waiting/
// failed union (CM-EXEC-05; 000 [wait]: "L'output è la stessa union"), as
// OpenClaw 2026.7.35's agent loop turns the ToolInputError its exec and wait
// throw into a tool result. One fault: CM-EXEC-05 fails, and the specs whose
// exec or wait is refused (CM-EXEC-01, -09, -11, -19) are blocked by it.
func init() {
	Variants = append(Variants, Variant{Name: "refusals-outside-union", Breaks: "CM-EXEC-05", Spec: "completed / waiting / failed union",
		Defect: "a refused exec input and every refused wait answer {status: \"error\", tool, error} instead of a failed result, as OpenClaw 2026.7.35 does",
		Serve:  refusalsOutsideUnion()})
}

// refusalsOutsideUnion rewrites the failed results that refuse a call (not
// those of a cell that ran): an exec's invalid_input about its input, and a
// wait's invalid_input, aborted or snapshot_expired.
func refusalsOutsideUnion() serveFunc {
	var mu sync.Mutex
	calls := map[string]string{} // id of the harness's tool.exec/tool.wait → method, until answered
	return lineProxy(func(l lines, b []byte) {
		var m rpc
		if json.Unmarshal(b, &m) == nil && (m.Method == protocol.MethodToolExec || m.Method == protocol.MethodToolWait) && len(m.ID) > 0 {
			mu.Lock()
			calls[string(m.ID)] = m.Method
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
		method := calls[string(m["id"])]
		delete(calls, string(m["id"]))
		mu.Unlock()
		var res struct {
			Status, Code, Error string
		}
		if method == "" || json.Unmarshal(m["result"], &res) != nil || res.Status != "failed" {
			l.toHarness(b)
			return
		}
		refused := false
		switch method {
		case protocol.MethodToolExec:
			refused = res.Code == "invalid_input" && strings.HasPrefix(res.Error, "exec ")
		case protocol.MethodToolWait:
			refused = res.Code == "invalid_input" || res.Code == "aborted" || res.Code == "snapshot_expired"
		}
		if !refused {
			l.toHarness(b)
			return
		}
		tool := strings.TrimPrefix(method, "tool.")
		m["result"], _ = json.Marshal(map[string]any{"status": "error", "tool": tool, "error": res.Error})
		out, _ := json.Marshal(m)
		l.toHarness(out)
	})
}
