package protocol

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/creachadair/jrpc2/channel"
)

// dropStray wraps a target's channel so that a response whose id matches none
// of the target's outstanding tool.invoke requests is dropped (§1: a peer
// SHOULD drop it and MUST NOT reply). jrpc2 would otherwise answer it with an
// error carrying that id, which can collide with one of the harness's own
// outstanding request ids.
//
// A tool.cancel this side sends also forgets the id of that nested call's
// tool.invoke: the caller stops waiting for it (and jrpc2 forgets it), so
// its late answer is dropped here instead of being kept until it arrives.
// Likewise a message hook's id is forgotten once MessageHookBudget passed
// (hookForget): the target then stops waiting and cancels the callback a
// little later (§4.2), so an answer after the budget is dropped here.
func dropStray(ch channel.Channel) channel.Channel {
	return &strayFilter{Channel: ch, outstanding: map[string]string{}, byCall: map[string]string{}}
}

type strayFilter struct {
	channel.Channel
	mu          sync.Mutex
	outstanding map[string]string // ids of requests this side sent → toolCallId of a tool.invoke
	byCall      map[string]string // toolCallId of an outstanding tool.invoke → its id
}

// envelope is just enough of a message to classify it.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
	Params struct {
		ToolCallID string `json:"toolCallId"`
	} `json:"params"`
}

// hookForget is when an unanswered message hook's id is forgotten (tests
// shorten it).
var hookForget = MessageHookBudget

func (s *strayFilter) Send(msg []byte) error {
	var e envelope
	if json.Unmarshal(msg, &e) == nil && e.Method != nil {
		s.mu.Lock()
		switch {
		case len(e.ID) > 0:
			call := ""
			if *e.Method == MethodToolInvoke {
				call = e.Params.ToolCallID
				s.byCall[call] = string(e.ID)
			}
			s.outstanding[string(e.ID)] = call
			if *e.Method == MethodHookBeforeMessageWrite || *e.Method == MethodHookAgentEnd {
				id := string(e.ID)
				time.AfterFunc(hookForget, func() {
					s.mu.Lock()
					defer s.mu.Unlock()
					delete(s.outstanding, id)
				})
			}
		case *e.Method == MethodToolCancel:
			if id, ok := s.byCall[e.Params.ToolCallID]; ok {
				delete(s.byCall, e.Params.ToolCallID)
				delete(s.outstanding, id)
			}
		}
		s.mu.Unlock()
	}
	return s.Channel.Send(msg)
}

func (s *strayFilter) Recv() ([]byte, error) {
	for {
		msg, err := s.Channel.Recv()
		if err != nil {
			return msg, err
		}
		var e envelope
		if json.Unmarshal(msg, &e) != nil || e.Method != nil || len(e.ID) == 0 {
			return msg, nil // requests, notifications and anything malformed: jrpc2 decides
		}
		s.mu.Lock()
		call, known := s.outstanding[string(e.ID)]
		delete(s.outstanding, string(e.ID))
		if call != "" {
			delete(s.byCall, call)
		}
		s.mu.Unlock()
		if known {
			return msg, nil
		}
		// A response to nothing: drop it and read on.
	}
}
