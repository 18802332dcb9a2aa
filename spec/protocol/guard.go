package protocol

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
)

// guardServer wraps a target's channel so that every malformed message gets
// the error JSON-RPC 2.0 and spec/protocol.md §1 give it, and the
// connection stays usable:
//   - a line over the maximum size: -32011 (ErrMessageTooLarge) with the
//     request's id when its start shows one, else null;
//   - not JSON: -32700; JSON but not a well-formed message object (42, a
//     batch, a wrong "jsonrpc", a non-string method, …): -32600, id null
//     when it cannot be read (jrpc2 answers some of these -32700);
//   - a malformed or oversized response to one of the target's own
//     requests reaches that request as an error of the same code (it is
//     never answered), and a response with a null id is dropped; a line
//     that is not JSON (or nests deeper than encoding/json decodes) is a
//     response or a request by what its bytes show (salvage.go), so a
//     response is never answered and a readable id is kept.
//
// Replies are written from the read loop: LineChannel.Send only queues them.
func guardServer(ch channel.Channel) channel.Channel { return &guard{Channel: ch} }

type guard struct{ channel.Channel }

func (g *guard) Recv() ([]byte, error) {
	for {
		msg, err := g.Channel.Recv()
		var big *OversizedError
		if errors.As(err, &big) {
			e := &jrpc2.Error{Code: ErrMessageTooLarge, Message: "message too large: " + big.Error()}
			e.Data, _ = json.Marshal(map[string]int64{"limit": int64(big.Limit), "size": big.Size})
			if big.Response {
				if big.ID != nil {
					return errorResponse(big.ID, e), nil
				}
				continue
			}
			g.reply(big.ID, e)
			continue
		}
		if err != nil && len(msg) == 0 {
			return msg, err
		}
		env, bad := CheckEnvelope(msg)
		switch {
		case bad == nil && env.Response && env.ID == nil:
			// answers nothing
		case bad == nil:
			return msg, err
		case env.Response:
			if env.ID != nil {
				bad.Message = "malformed response: " + bad.Message
				return errorResponse(env.ID, bad), err
			}
		case env.ID == nil && bad.Code == jrpc2.ParseError:
			// Not JSON, or deeper than encoding/json decodes: what its
			// bytes show of the envelope decides (salvage.go).
			id, response := salvage(msg)
			switch {
			case response && id != nil:
				bad.Message = "malformed response: " + bad.Message
				return errorResponse(id, bad), err
			case !response:
				g.reply(id, bad)
			}
		default:
			g.reply(env.ID, bad)
		}
		if err != nil {
			return nil, err
		}
	}
}

// reply sends error e for the message with id (null when nil).
func (g *guard) reply(id json.RawMessage, e *jrpc2.Error) {
	_ = g.Channel.Send(errorResponse(id, e))
}

// errorResponse is the JSON-RPC error response e for id (null when nil).
func errorResponse(id json.RawMessage, e *jrpc2.Error) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		V  string          `json:"jsonrpc"`
		ID json.RawMessage `json:"id"`
		E  *jrpc2.Error    `json:"error"`
	}{"2.0", id, e})
	if err != nil { // id was checked by validID; e marshals
		panic(fmt.Sprintf("protocol: error response: %v", err))
	}
	return b
}
