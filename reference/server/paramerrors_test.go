package server

import (
	"fmt"
	"strings"
	"testing"
)

// A wrong JSON type in a member of run.prepare (or any method) is answered
// -32602 with a message naming the member, not jrpc2's bare "invalid
// parameters" (issue 28 nits; 35 such cases in the reliability pass).
func TestWrongParamTypeNamesTheMember(t *testing.T) {
	p := newRawPeer(t, Options{})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1","harness":{"name":"t","version":"0"}}}`)
	p.next()
	for i, tc := range []struct{ params, member string }{
		{`{"run":"r","tools":"x"}`, "tools"},
		{`{"run":"r","policy":{"allow":"x"}}`, "policy.allow"},
		{`{"run":"r","raw":1}`, "raw"},
		{`{"run":7}`, "run"},
	} {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"run.prepare","params":%s}`, i+2, tc.params))
		m := p.next()
		e, _ := m["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if e == nil || e["code"] != float64(-32602) || !strings.HasPrefix(msg, "run.prepare: invalid params: ") || !strings.Contains(msg, tc.member) {
			t.Errorf("run.prepare %s: %v; want -32602 naming %s", tc.params, m, tc.member)
		}
	}
}

// A run id or identity member over 1 KiB is refused at prepare: it would be
// echoed in every tool.invoke (issue 28 nits: 1 MiB was accepted).
func TestPrepareBoundsTheRunID(t *testing.T) {
	p := newRawPeer(t, Options{})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1","harness":{"name":"t","version":"0"}}}`)
	p.next()
	long := strings.Repeat("r", 1<<20)
	for i, member := range []string{"run", "sessionKey"} {
		ctx := map[string]string{"run": "r", "agentId": "a", "sessionId": "s", "sessionKey": "k", "senderId": "x", "channel": "c"}
		ctx[member] = long
		params := fmt.Sprintf(`{"run":%q,"agentId":"a","sessionId":"s","sessionKey":%q,"senderId":"x","channel":"c","codeMode":true,"tools":[]}`, ctx["run"], ctx["sessionKey"])
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"run.prepare","params":%s}`, i+2, params))
		m := p.next()
		e, _ := m["error"].(map[string]any)
		if msg, _ := e["message"].(string); e == nil || e["code"] != float64(-32602) || !strings.Contains(msg, member+" is 1048576 bytes") {
			t.Errorf("run.prepare with a 1 MiB %s: %.300v; want -32602 naming it", member, m)
		}
	}
	p.send(`{"jsonrpc":"2.0","id":9,"method":"run.prepare","params":{"run":"` + strings.Repeat("r", 1024) + `","agentId":"a","sessionId":"s","sessionKey":"k","senderId":"x","channel":"c","codeMode":true,"tools":[]}}`)
	if m := p.next(); m["result"] == nil {
		t.Errorf("run.prepare with a 1024-byte run id: %.300v; want a result", m)
	}
}
