package framework

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/creachadair/jrpc2/channel"
)

// MaxMessageBytes bounds each message the harness reads from a target, in
// bytes without the newline (spec/protocol.md §1; codemode-conformance run
// --max-message-bytes sets it). A longer message is a fault of the target:
// the spec running is an error naming its size, and the target is killed.
var MaxMessageBytes = protocol.DefaultMaxMessageBytes

// maxOutstandingInvokes bounds the tool.invoke calls of one connection that
// the harness has received and not yet answered, so the goroutines and
// messages it holds for them stay bounded. CM-LIM-05 allows
// maxPendingToolCalls in flight per cell; a target past this bound is
// flooding the harness (a 100k flood cost 1.2 GB).
const maxOutstandingInvokes = 1024

// errFlooded ends the reading of a target that flooded the harness.
var errFlooded = errors.New("the harness stopped reading a target that flooded it with tool.invoke calls")

// invokeFloodReason is the failure of the spec during which a target had
// more than maxOutstandingInvokes calls outstanding.
var invokeFloodReason = fmt.Sprintf("the target had more than %d tool.invoke calls outstanding at once on one connection (CM-LIM-05 allows maxPendingToolCalls per cell): a flood; the harness stopped reading and killed it", maxOutstandingInvokes)

// arrivals is the harness's side of a target's channel. It shows each
// tool.invoke the target sends to see, in wire order, before jrpc2
// dispatches it (see router.arrive), or to malformed when its params break
// spec/protocol.md §4; it counts the invokes not yet
// answered (their answers written, see written) and stops at a flood
// (onFlood); and it stops at a message over
// the size bound (onOversize). Both stop the client: Recv fails.
type arrivals struct {
	channel.Channel
	see        func(protocol.InvokeParams)
	malformed  func(p protocol.InvokeParams, raw json.RawMessage, err error)
	onFlood    func(reason string)
	onOversize func(*protocol.OversizedError)

	mu          sync.Mutex
	outstanding map[string]bool // ids of invokes received and not yet answered
}

func (a *arrivals) Recv() ([]byte, error) {
	b, err := a.Channel.Recv()
	var big *protocol.OversizedError
	if errors.As(err, &big) && a.onOversize != nil {
		a.onOversize(big)
		return nil, err
	}
	if err != nil || !bytes.Contains(b, []byte(protocol.MethodToolInvoke)) {
		return b, err
	}
	type msg struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
		Params json.RawMessage `json:"params"`
	}
	var list []msg
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		_ = json.Unmarshal(t, &list)
	} else {
		var m msg
		if json.Unmarshal(t, &m) == nil {
			list = append(list, m)
		}
	}
	for _, m := range list {
		if m.Method != protocol.MethodToolInvoke || len(m.ID) == 0 {
			continue
		}
		if a.count(m.ID) {
			if a.onFlood != nil {
				go a.onFlood(invokeFloodReason)
			}
			return nil, errFlooded
		}
		p, perr := protocol.CheckInvokeParams(m.Params)
		switch {
		case perr != nil && a.malformed != nil:
			a.malformed(p, m.Params, perr) // answered -32602 by protocol.NewClient
		case perr == nil && a.see != nil:
			a.see(p)
		}
	}
	return b, err
}

// count records an invoke id as outstanding and reports whether that makes
// a flood.
func (a *arrivals) count(id json.RawMessage) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.outstanding == nil {
		a.outstanding = map[string]bool{}
	}
	a.outstanding[string(id)] = true
	return len(a.outstanding) > maxOutstandingInvokes
}

// written forgets an invoke once its answer reached the wire: it sees each
// message the channel writes (one Write per message), so an answer queued
// for a target that does not read still counts as outstanding.
func (a *arrivals) written(b []byte) {
	if env := protocol.PeekEnvelope(b); env.Method == "" && env.ID != nil {
		a.mu.Lock()
		delete(a.outstanding, string(env.ID))
		a.mu.Unlock()
	}
}

// writeHook calls seen with each message written to w.
type writeHook struct {
	io.WriteCloser
	seen func([]byte)
}

func (h writeHook) Write(b []byte) (int, error) {
	n, err := h.WriteCloser.Write(b)
	if err == nil {
		h.seen(b)
	}
	return n, err
}
