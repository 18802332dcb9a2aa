package protocol

import (
	"encoding/json"
	"sync"

	"github.com/creachadair/jrpc2/channel"
)

// dropStray wraps a target's channel so that a response whose id matches none
// of the target's outstanding tool.invoke requests is dropped (§1: a peer
// SHOULD drop it and MUST NOT reply). jrpc2 would otherwise answer it with an
// error carrying that id, which can collide with one of the harness's own
// outstanding request ids.
func dropStray(ch channel.Channel) channel.Channel {
	return &strayFilter{Channel: ch, outstanding: map[string]bool{}}
}

type strayFilter struct {
	channel.Channel
	mu          sync.Mutex
	outstanding map[string]bool // ids of requests this side sent
}

// envelope is just enough of a message to classify it.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
}

func (s *strayFilter) Send(msg []byte) error {
	var e envelope
	if json.Unmarshal(msg, &e) == nil && e.Method != nil && len(e.ID) > 0 {
		s.mu.Lock()
		s.outstanding[string(e.ID)] = true
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
		known := s.outstanding[string(e.ID)]
		delete(s.outstanding, string(e.ID))
		s.mu.Unlock()
		if known {
			return msg, nil
		}
		// A response to nothing: drop it and read on.
	}
}
