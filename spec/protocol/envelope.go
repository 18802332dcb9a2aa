package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/creachadair/jrpc2"
)

// ErrMessageTooLarge is the JSON-RPC error code for a message longer than
// the receiver's maximum message size (spec/protocol.md §1). Its data is
// {"limit": bytes, "size": bytes}.
const ErrMessageTooLarge = -32011

// Envelope is what CheckEnvelope read from a message.
type Envelope struct {
	// ID is the message's id (nil when absent, null or invalid).
	ID json.RawMessage
	// Method is set for a well-formed request or notification.
	Method string
	// Response is set for a response (result or error, no method), also a
	// malformed one.
	Response bool
}

// CheckEnvelope checks one message against the envelope rules of
// spec/protocol.md §1 and JSON-RPC 2.0: a JSON object (batches are not
// used) with "jsonrpc":"2.0", an id that is a string, a number or null, a
// string method (a request) or exactly one of result and error (a
// response), params that are an object or an array, an error that is
// {code, message, data?}, and no other member.
//
// It returns a *jrpc2.Error with code -32700 (jrpc2.ParseError) when msg
// is not JSON and -32600 (jrpc2.InvalidRequest) for every other fault. The
// Envelope then holds what could be read (ID when it was valid).
func CheckEnvelope(msg []byte) (Envelope, *jrpc2.Error) {
	var env Envelope
	notJSON := &jrpc2.Error{Code: jrpc2.ParseError, Message: "parse error: the message is not JSON"}
	t := bytes.TrimSpace(msg)
	if len(t) == 0 || t[0] != '{' {
		if !json.Valid(t) {
			return env, notJSON
		}
		what := "a JSON object"
		if len(t) > 0 && t[0] == '[' {
			what += " (batches are not used, spec/protocol.md §1)"
		}
		return env, &jrpc2.Error{Code: jrpc2.InvalidRequest, Message: "invalid request: a message must be " + what}
	}
	// Two passes that copy no large member: the member names (exact, as
	// JSON-RPC spells them), then the members the envelope needs; params and
	// result are only looked at, never copied.
	var names map[string]skipped
	if err := json.Unmarshal(t, &names); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return env, notJSON
		}
		return env, &jrpc2.Error{Code: jrpc2.InvalidRequest, Message: "invalid request: " + err.Error()}
	}
	var obj struct {
		JSONRPC json.RawMessage `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Params  glance          `json:"params"`
		Result  glance          `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	invalid := func(format string, args ...any) (Envelope, *jrpc2.Error) {
		return env, &jrpc2.Error{Code: jrpc2.InvalidRequest, Message: "invalid request: " + fmt.Sprintf(format, args...)}
	}
	if err := json.Unmarshal(t, &obj); err != nil {
		return invalid("%v", err)
	}
	if _, ok := names["id"]; ok {
		if !validID(obj.ID) {
			return invalid("id must be a string, a number or null")
		}
		if string(bytes.TrimSpace(obj.ID)) != "null" {
			env.ID = obj.ID
		}
	}
	var extra []string
	for k := range names {
		switch k {
		case "jsonrpc", "id", "method", "params", "result", "error":
		default:
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return invalid("members %q are not part of a JSON-RPC message", extra)
	}
	var version string
	if json.Unmarshal(obj.JSONRPC, &version) != nil || version != "2.0" {
		return invalid(`"jsonrpc" must be "2.0"`)
	}
	_, hasResult := names["result"]
	_, hasError := names["error"]
	rawErr := obj.Error
	if _, ok := names["method"]; ok {
		if json.Unmarshal(obj.Method, &env.Method) != nil || env.Method == "" {
			return invalid("method must be a non-empty string")
		}
		if hasResult || hasError {
			env.Method = ""
			return invalid("a message has either method or result/error, not both")
		}
		if _, ok := names["params"]; ok && obj.Params.first != '{' && obj.Params.first != '[' && obj.Params.first != 'n' {
			return invalid("params must be an object")
		}
		return env, nil
	}
	// A response; its id may be null (an error about a message whose id
	// could not be read), which answers nothing.
	env.Response = hasResult || hasError
	if _, ok := names["params"]; ok {
		return invalid("params without method")
	}
	switch {
	case hasResult && hasError:
		return invalid("a response has exactly one of result and error")
	case !hasResult && !hasError:
		return invalid("a message needs method (a request) or result/error (a response)")
	}
	if hasError {
		var e struct {
			Code    *json.Number     `json:"code"`
			Message *string          `json:"message"`
			Data    *json.RawMessage `json:"data"`
		}
		if t := bytes.TrimSpace(rawErr); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &e) != nil || e.Code == nil || e.Message == nil {
			return invalid("error must be {code, message, data?} with an integer code and a string message")
		}
		if _, err := e.Code.Int64(); err != nil {
			return invalid("error code must be an integer")
		}
	}
	return env, nil
}

// PeekEnvelope reads a message's id, method and kind from its first 4 KiB
// only (members in any order; a member cut off there ends the search), so
// it costs the same for a message of any size. ID is nil when it is not
// there or not valid.
func PeekEnvelope(msg []byte) Envelope {
	id, method, response := peekEnvelope(msg[:min(len(msg), headBytes)])
	return Envelope{ID: id, Method: method, Response: response}
}

// invokeMembers are the params members of tool.invoke (§4), all required;
// every one but input and context is a string.
var invokeMembers = []string{"run", "toolCallId", "parentToolCallId", "catalogId", "tool", "source", "owner", "input", "context"}

// CheckInvokeParams decodes tool.invoke params and checks them against §4:
// an object with every member present, the strings non-empty strings and
// context an object of strings. The error (a -32602 *jrpc2.Error) names
// every fault.
func CheckInvokeParams(raw json.RawMessage) (InvokeParams, error) {
	var p InvokeParams
	var obj map[string]json.RawMessage
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &obj) != nil {
		return p, &jrpc2.Error{Code: jrpc2.InvalidParams, Message: "tool.invoke: params must be an object with " + fmt.Sprint(invokeMembers)}
	}
	var faults []string
	for _, k := range invokeMembers {
		v, ok := obj[k]
		switch {
		case !ok:
			faults = append(faults, k+" is missing")
		case k == "input":
		case k == "parentToolCallId":
			// "" for a direct tool call of agent.turn (§3), which no exec/wait made.
			var s string
			if json.Unmarshal(v, &s) != nil {
				faults = append(faults, k+" must be a string")
			}
		case k == "context":
			if !validContext(v) {
				faults = append(faults, "context must be an object of strings {agentId, sessionId, sessionKey, senderId, channel} and an optional sandbox {mode: string}")
			}
		default:
			var s string
			if json.Unmarshal(v, &s) != nil || s == "" {
				faults = append(faults, k+" must be a non-empty string")
			}
		}
	}
	if len(faults) == 0 {
		if err := json.Unmarshal(raw, &p); err != nil {
			faults = append(faults, err.Error())
		}
	}
	if len(faults) > 0 {
		return p, &jrpc2.Error{Code: jrpc2.InvalidParams, Message: "tool.invoke: malformed params: " + strings.Join(faults, "; ")}
	}
	return p, nil
}

// validContext reports whether v is a tool.invoke context (§4): an object
// whose members are strings, but sandbox (feature sandbox, CM-NEST-10), an
// object with a string mode.
func validContext(v json.RawMessage) bool {
	var c map[string]json.RawMessage
	if t := bytes.TrimSpace(v); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &c) != nil {
		return false
	}
	for k, m := range c {
		var s string
		if k == "sandbox" {
			var sb struct {
				Mode *string `json:"mode"`
			}
			if t := bytes.TrimSpace(m); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &sb) != nil || sb.Mode == nil {
				return false
			}
		} else if json.Unmarshal(m, &s) != nil {
			return false
		}
	}
	return true
}

// skipped is a JSON value decoded into nothing (only its member name is
// wanted).
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

// glance keeps only the first byte of a JSON value ('n' for null).
type glance struct{ first byte }

func (g *glance) UnmarshalJSON(b []byte) error {
	if len(b) > 0 {
		g.first = b[0]
	}
	return nil
}
