package framework

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/schema"
	"github.com/creachadair/jrpc2/channel"
)

// ValidateProtocol, when set before targets connect (codemode-conformance
// run --validate-protocol), checks every message a target sends against
// spec/schema: each response's result against its method's result schema,
// each tool.invoke's params against tool.invoke.params.json. The first
// violation is kept (ProtocolViolation); verdicts are not changed by it.
var ValidateProtocol bool

var firstViolation atomic.Pointer[string]

// ProtocolViolation is the first message a target sent that broke its
// schema, with the message and the schema path; "" when none did.
func ProtocolViolation() string {
	if p := firstViolation.Load(); p != nil {
		return *p
	}
	return ""
}

// resultSchemas names the schema of each method's result.
var resultSchemas = map[string]string{
	protocol.MethodInitialize:   "initialize.result.json",
	protocol.MethodRunPrepare:   "run.prepare.result.json",
	protocol.MethodToolExec:     "tool.result.json",
	protocol.MethodToolWait:     "tool.result.json",
	protocol.MethodRuntimeStats: "runtime.stats.result.json",
}

// validating wraps a target's channel when ValidateProtocol is set: it
// remembers the method of each request the harness sends, by id, to pick
// the schema of its response.
func validating(spec string, c channel.Channel) channel.Channel {
	if !ValidateProtocol {
		return c
	}
	return &validatingChannel{Channel: c, spec: spec, methods: map[string]string{}}
}

type validatingChannel struct {
	channel.Channel
	spec    string
	mu      sync.Mutex
	methods map[string]string // request id -> method, until answered
}

type wireMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
}

func (v *validatingChannel) Send(b []byte) error {
	var m wireMessage
	if json.Unmarshal(b, &m) == nil && m.Method != "" && len(m.ID) > 0 {
		v.mu.Lock()
		v.methods[string(m.ID)] = m.Method
		v.mu.Unlock()
	}
	return v.Channel.Send(b)
}

func (v *validatingChannel) Recv() ([]byte, error) {
	b, err := v.Channel.Recv()
	if err != nil || firstViolation.Load() != nil {
		return b, err
	}
	var m wireMessage
	if json.Unmarshal(b, &m) != nil {
		return b, err // not JSON: the envelope checks of the client report it
	}
	name, what := "", ""
	switch {
	case m.Method == protocol.MethodToolInvoke:
		name, what = "tool.invoke.params.json", "the params of tool.invoke"
		m.Result = m.Params
	case m.Method == "" && len(m.ID) > 0 && len(m.Result) > 0:
		v.mu.Lock()
		method := v.methods[string(m.ID)]
		delete(v.methods, string(m.ID))
		v.mu.Unlock()
		name, what = resultSchemas[method], "the result of "+method
	}
	if name == "" {
		return b, err
	}
	if verr := schema.Validate(name, m.Result); verr != nil {
		msg := string(b)
		if len(msg) > 400 {
			msg = msg[:400] + "…"
		}
		reason := fmt.Sprintf("target %s: %s breaks spec/schema/%s: %v; message: %s", v.spec, what, name, verr, msg)
		firstViolation.CompareAndSwap(nil, &reason)
	}
	return b, err
}
