package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/creachadair/jrpc2"
)

// sink is a channel.Channel whose Recv reads a LineChannel and whose Send
// keeps what was sent (the server guard's replies).
type sink struct {
	*LineChannel
	sent [][]byte
}

func (s *sink) Send(b []byte) error { s.sent = append(s.sent, append([]byte(nil), b...)); return nil }

// FuzzCodec: any byte stream, read through LineChannel with a small bound
// and through the server's guard, is framed exactly (every byte is in a
// line, an oversized line or a newline; no line is longer than the bound),
// never panics, and every message is either handed on well-formed
// (CheckEnvelope accepts it, and PeekEnvelope reads the same id and method)
// or answered with a JSON-RPC error of code -32700, -32600 or -32011.
func FuzzCodec(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"runtime.stats"}` + "\n",
		"42\n\"s\"\ntrue\nnull\n[]\n[1]\n{\n\n",
		`{"jsonrpc":"2.0","id":{},"method":"x"}` + "\n" + `{"jsonrpc":2,"id":3,"method":"x"}` + "\n",
		`{"jsonrpc":"2.0","id":7,"error":"nope"}` + "\n" + `{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tool.exec","params":{"code":"` + string(bytes.Repeat([]byte("x"), 300)) + `"}}` + "\n",
		`{"jsonrpc":"2.0","id":9,"method":"tool.invoke","params":{"run":"r","toolCallId":5}}` + "\n",
		"\xff\xfe\n{\"jsonrpc\":\"2.0\",\"id\":1e400,\"method\":\"m\"}\n",
	} {
		f.Add([]byte(seed), uint16(200))
	}
	f.Fuzz(func(t *testing.T, data []byte, bound uint16) {
		limit := 16 + int(bound)%1024
		lc := NewLineChannel(bytes.NewReader(data), nopCloser{io.Discard}, limit)
		s := &sink{LineChannel: lc}
		g := guardServer(s)
		for i := 0; ; i++ {
			sentBefore := len(s.sent)
			msg, err := g.Recv()
			if bytes.IndexByte(msg, '\n') >= 0 {
				t.Fatalf("a message holds a newline: %q", msg)
			}
			if len(msg) > 0 {
				env, bad := CheckEnvelope(msg)
				if bad != nil && !(env.Response && env.ID != nil) {
					t.Fatalf("the guard handed on a malformed message %q: %v", msg, bad)
				}
				if bad == nil && len(msg) < headBytes {
					if p := PeekEnvelope(msg); !bytes.Equal(p.ID, env.ID) && env.ID != nil || p.Method != env.Method {
						t.Fatalf("PeekEnvelope(%q) = %+v, CheckEnvelope = %+v", msg, p, env)
					}
				}
				if env.Method == MethodToolInvoke {
					var raw json.RawMessage
					if t := bytes.TrimSpace(msg); len(t) > 0 {
						var m struct {
							Params json.RawMessage `json:"params"`
						}
						_ = json.Unmarshal(t, &m)
						raw = m.Params
					}
					if _, err := CheckInvokeParams(raw); err != nil && jrpc2.ErrorCode(err) != jrpc2.InvalidParams {
						t.Fatalf("CheckInvokeParams(%s) = %v, want nil or -32602", raw, err)
					}
				}
			}
			for _, r := range s.sent[sentBefore:] {
				var rsp struct {
					V  string          `json:"jsonrpc"`
					ID json.RawMessage `json:"id"`
					E  *jrpc2.Error    `json:"error"`
				}
				if err := json.Unmarshal(r, &rsp); err != nil || rsp.V != "2.0" || rsp.E == nil || !validID(rsp.ID) {
					t.Fatalf("the guard replied %q, not a JSON-RPC error response", r)
				}
				if c := rsp.E.Code; c != jrpc2.ParseError && c != jrpc2.InvalidRequest && c != ErrMessageTooLarge {
					t.Fatalf("the guard replied code %d", c)
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("Recv: %v", err)
				}
				break
			}
			if i > len(data)+1 {
				t.Fatal("Recv does not reach EOF")
			}
		}
		// Framing alone: lines, oversized lines and newlines account for
		// every byte.
		lc = NewLineChannel(bytes.NewReader(data), nopCloser{io.Discard}, limit)
		var total int64
		for {
			msg, err := lc.Recv()
			var big *OversizedError
			switch {
			case errors.As(err, &big):
				if big.Size <= int64(limit) || big.Limit != limit {
					t.Fatalf("OversizedError %+v for a bound of %d", big, limit)
				}
				total += big.Size
				if big.Terminated {
					total++
				}
				continue
			case err == nil:
				if len(msg) > limit {
					t.Fatalf("a line of %d bytes passed a bound of %d", len(msg), limit)
				}
				total += int64(len(msg)) + 1
				continue
			}
			total += int64(len(msg))
			if err != io.EOF {
				t.Fatalf("Recv: %v", err)
			}
			break
		}
		if total != int64(len(data)) {
			t.Fatalf("framing accounts for %d of %d bytes", total, len(data))
		}
	})
}
