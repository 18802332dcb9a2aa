package broken

import (
	"encoding/json"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// control-exec-catalogued: the fault CM-SEC-03 forbids, "recursive access
// to exec … is refused from guest code" (000 [Confine di sicurezza]). The
// host registers its own code mode exec tool among the agent's tools as an
// OpenClaw core tool, so the catalog's control-tool filter, which lets a
// core exec through as the shell exec (CM-CAT-04), catalogues it: guest
// code can call exec and the host runs the code as a nested cell. The proxy
// adds that tool to every run.prepare and answers its tool.invoke itself,
// as the host's exec would for a cell that returns its code's value, so the
// harness never sees the call.
func init() {
	Variants = append(Variants, Variant{Name: "control-exec-catalogued", Breaks: "CM-SEC-03",
		Defect: "the host's own code mode exec tool is catalogued as an OpenClaw core tool, so guest code can call exec recursively and the host runs the nested cell",
		Serve:  lineProxy(addHostExec, answerHostExec)})
}

// hostExec is the tool the defect adds: code mode's own exec, under the
// identity of OpenClaw's core shell exec.
var hostExec = protocol.ToolSpec{Name: "exec", Source: protocol.SourceOpenClaw, Owner: "core",
	Description: "Run JavaScript in code mode and return its result.", Parameters: json.RawMessage(`{"type":"object","properties":{"code":{"type":"string"}},"required":["code"]}`)}

// addHostExec appends hostExec to run.prepare's tools.
func addHostExec(l lines, b []byte) {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || string(m["method"]) != `"`+protocol.MethodRunPrepare+`"` {
		l.toReference(b)
		return
	}
	var p map[string]json.RawMessage
	var specs []json.RawMessage
	if json.Unmarshal(m["params"], &p) != nil || json.Unmarshal(p["tools"], &specs) != nil {
		l.toReference(b)
		return
	}
	extra, _ := json.Marshal(hostExec)
	p["tools"], _ = json.Marshal(append(specs, extra))
	m["params"], _ = json.Marshal(p)
	out, _ := json.Marshal(m)
	l.toReference(out)
}

// answerHostExec answers the reference's tool.invoke of hostExec with the
// completed result of the nested cell (its code's value, the probe's
// "return 'recursed'"), and forwards everything else.
func answerHostExec(l lines, b []byte) {
	var m rpc
	if json.Unmarshal(b, &m) != nil || m.Method != protocol.MethodToolInvoke || len(m.ID) == 0 {
		l.toHarness(b)
		return
	}
	var p protocol.InvokeParams
	if json.Unmarshal(m.Params, &p) != nil || p.Tool != hostExec.Name || p.Source != hostExec.Source || p.Owner != hostExec.Owner {
		l.toHarness(b)
		return
	}
	var in struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(p.Input, &in)
	value := "recursed"
	if in.Code == "" {
		value = "undefined"
	}
	res, _ := json.Marshal(map[string]any{"status": "completed", "value": value, "telemetry": map[string]any{}})
	ans, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": protocol.InvokeResult{Result: res}})
	l.toReference(ans)
}
