// Package tools is the fake tool set the harness declares in run.prepare and
// answers through tool.invoke: echo, add, slow, fail and big, the
// network-controlled fetch_page (network.go), plus helpers to declare
// arbitrary tools. Every invocation is recorded with its full context so
// specs can check what a target sent (CM-NEST-01).
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Handler runs one tool call. A returned *protocol error from
// protocol.ToolError reaches the guest as a thrown tool error.
type Handler func(ctx context.Context, input json.RawMessage) (any, error)

// Tool is a declared tool and its behaviour.
type Tool struct {
	Spec    protocol.ToolSpec
	Handler Handler
}

// Set is the tools of one run plus the log of their invocations. Safe for
// concurrent use.
type Set struct {
	mu      sync.Mutex
	tools   map[string]Tool // by key(source, owner, name)
	order   []string
	calls   []protocol.InvokeParams
	active  int
	maxSeen int
	done    int
	// canceled counts invocations whose context was canceled (tool.cancel)
	// before they returned.
	canceled int
	// returned is closed, and replaced, each time an invocation returns
	// (AnyReturned); returnedIDs holds the toolCallIds of those that did.
	returned    chan struct{}
	returnedIDs map[string]bool
}

// NewSet returns a set holding ts.
func NewSet(ts ...Tool) *Set {
	s := &Set{tools: map[string]Tool{}, returned: make(chan struct{}), returnedIDs: map[string]bool{}}
	for _, t := range ts {
		s.Add(t)
	}
	return s
}

// key identifies a tool: two tools may share a name (CM-GUEST-06).
func key(source, owner, name string) string { return source + "\x00" + owner + "\x00" + name }

// Add declares t (replacing a tool with the same source, owner and name).
func (s *Set) Add(t Tool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(t.Spec.Source, t.Spec.Owner, t.Spec.Name)
	if _, ok := s.tools[k]; !ok {
		s.order = append(s.order, k)
	}
	s.tools[k] = t
}

// Specs lists the declared tools in declaration order.
func (s *Set) Specs() []protocol.ToolSpec {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]protocol.ToolSpec, 0, len(s.order))
	for _, n := range s.order {
		out = append(out, s.tools[n].Spec)
	}
	return out
}

// Invoke answers a tool.invoke. Unknown tools are an error (a target must
// never invoke a tool that was not declared).
func (s *Set) Invoke(ctx context.Context, p protocol.InvokeParams) (json.RawMessage, error) {
	s.mu.Lock()
	t, ok := s.tools[key(p.Source, p.Owner, p.Tool)]
	s.calls = append(s.calls, p)
	s.active++
	if s.active > s.maxSeen {
		s.maxSeen = s.active
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.active--
		s.done++
		if ctx.Err() != nil {
			s.canceled++
		}
		s.returnedIDs[p.ToolCallID] = true
		close(s.returned)
		s.returned = make(chan struct{})
		s.mu.Unlock()
	}()
	if !ok {
		return nil, protocol.ToolError(fmt.Sprintf("harness: tool %q was not declared for this run", p.Tool), nil)
	}
	v, err := t.Handler(ctx, p.Input)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// Calls returns a copy of every invocation so far.
func (s *Set) Calls() []protocol.InvokeParams {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]protocol.InvokeParams(nil), s.calls...)
}

// CallsOf returns the invocations of one tool name.
func (s *Set) CallsOf(name string) []protocol.InvokeParams {
	var out []protocol.InvokeParams
	for _, c := range s.Calls() {
		if c.Tool == name {
			out = append(out, c)
		}
	}
	return out
}

// Finished counts invocations that have returned.
func (s *Set) Finished() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done
}

// AnyReturned waits until one of the invocations with these toolCallIds
// has returned (at once if one already has), or ctx ends; it reports
// whether one has.
func (s *Set) AnyReturned(ctx context.Context, ids []string) bool {
	for {
		s.mu.Lock()
		returned := s.returned
		for _, id := range ids {
			if s.returnedIDs[id] {
				s.mu.Unlock()
				return true
			}
		}
		s.mu.Unlock()
		select {
		case <-returned:
		case <-ctx.Done():
			return false
		}
	}
}

// Canceled counts invocations that were canceled (through tool.cancel or the
// connection closing) before they returned.
func (s *Set) Canceled() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.canceled
}

// Active counts invocations in flight now.
func (s *Set) Active() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active
}

// MaxConcurrent is the largest number of invocations seen in flight at once.
func (s *Set) MaxConcurrent() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxSeen
}

func obj(props string, required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	if required == nil {
		req = []byte("[]")
	}
	return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `}`)
}

// Core declares name as an OpenClaw core tool (source openclaw, owner core).
func Core(name, description string, params json.RawMessage, h Handler) Tool {
	return Tool{Spec: protocol.ToolSpec{Name: name, Description: description, Parameters: params, Source: protocol.SourceOpenClaw, Owner: "core"}, Handler: h}
}

// Plugin declares name as a plugin tool owned by pluginID.
func Plugin(pluginID, name, description string, params json.RawMessage, h Handler) Tool {
	return Tool{Spec: protocol.ToolSpec{Name: name, Description: description, Parameters: params, Source: protocol.SourcePlugin, Owner: pluginID}, Handler: h}
}

// Echo returns its input unchanged.
func Echo() Tool {
	return Core("echo", "Echo the input object back unchanged.", obj(`"message":{"type":"string","description":"Text to echo"}`),
		func(ctx context.Context, in json.RawMessage) (any, error) { return in, nil })
}

// Add returns {sum: a+b}.
func Add() Tool {
	return Core("add", "Add two numbers and return their sum.", obj(`"a":{"type":"number"},"b":{"type":"number"}`, "a", "b"),
		func(ctx context.Context, in json.RawMessage) (any, error) {
			var v struct{ A, B float64 }
			if err := json.Unmarshal(in, &v); err != nil {
				return nil, protocol.ToolError("add: input must be {a: number, b: number}", nil)
			}
			return map[string]float64{"sum": v.A + v.B}, nil
		})
}

// Slow waits ms milliseconds (default 100), then returns {slept: ms, tag}.
func Slow() Tool {
	return Core("slow", "Wait for ms milliseconds, then return {slept, tag}.", obj(`"ms":{"type":"integer"},"tag":{"type":"string"}`),
		func(ctx context.Context, in json.RawMessage) (any, error) {
			var v struct {
				Ms  int    `json:"ms"`
				Tag string `json:"tag"`
			}
			_ = json.Unmarshal(in, &v)
			if v.Ms <= 0 {
				v.Ms = 100
			}
			select {
			case <-time.After(time.Duration(v.Ms) * time.Millisecond):
				return map[string]any{"slept": v.Ms, "tag": v.Tag}, nil
			case <-ctx.Done():
				return nil, protocol.ToolError("slow: canceled", nil)
			}
		})
}

// Fail always throws a tool error with the given message and data {reason}.
func Fail() Tool {
	return Core("fail", "Always fail with the given message.", obj(`"message":{"type":"string"}`),
		func(ctx context.Context, in json.RawMessage) (any, error) {
			var v struct{ Message string }
			_ = json.Unmarshal(in, &v)
			if v.Message == "" {
				v.Message = "fail tool failed"
			}
			return nil, protocol.ToolError(v.Message, map[string]string{"reason": "requested"})
		})
}

// Big returns a string of size bytes (default 1024).
func Big() Tool {
	return Core("big", "Return a string of size bytes.", obj(`"size":{"type":"integer"}`),
		func(ctx context.Context, in json.RawMessage) (any, error) {
			var v struct{ Size int }
			_ = json.Unmarshal(in, &v)
			if v.Size <= 0 {
				v.Size = 1024
			}
			if v.Size > 64<<20 {
				v.Size = 64 << 20
			}
			return strings.Repeat("x", v.Size), nil
		})
}

// Standard is echo, add, slow, fail and big.
func Standard() []Tool { return []Tool{Echo(), Add(), Slow(), Fail(), Big()} }

// Named declares a core tool with no behaviour beyond returning {tool: name}:
// catalog filler for search and policy specs.
func Named(source, owner, name, description string) Tool {
	return Tool{Spec: protocol.ToolSpec{Name: name, Description: description, Parameters: obj(""), Source: source, Owner: owner},
		Handler: func(ctx context.Context, in json.RawMessage) (any, error) {
			return map[string]string{"tool": name}, nil
		}}
}
