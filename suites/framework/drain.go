package framework

import (
	"strings"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/creachadair/jrpc2/channel"
)

// drainGrace bounds how long the end of a target's stream is held back for
// answers already read (drainOnEnd). Delivery is a goroutine taking one lock,
// so it is reached at once unless the machine is badly overloaded; the bound
// only keeps a wedged client from holding a dead target's EOF forever.
const drainGrace = 5 * time.Second

// drainOnEnd holds back the end of a target's stream (EOF, or any read
// error) until every answer read before it has reached its call.
//
// jrpc2's client (v1.3.6, client.go accept) hands each message it reads to a
// goroutine of its own for delivery and, on the next read's error, fails
// every call still pending at once. A target that writes an answer and
// closes its connection straight after (a process that answers and exits)
// could so lose that answer: the call failed as "target connection lost"
// although its answer had arrived (issue 27; 2 in 100 runs of
// TestCrashBetweenTwoCallsIsAnError). Delivery is seen through the client's
// log, the one hook jrpc2 calls from its delivery goroutine: each delivered
// response logs exactly one of deliveredLogPrefixes (clientLog reads the same
// lines).
type drainOnEnd struct {
	channel.Channel

	mu        sync.Mutex
	read      int           // responses handed to the client
	delivered int           // responses the client logged as delivered
	changed   chan struct{} // closed and replaced when delivered grows
}

// deliveredLogPrefixes are the lines jrpc2's deliverLocked logs, one per
// response it delivers (completed, an error answer, or one for an id no call
// is waiting on).
var deliveredLogPrefixes = []string{"Completed request for ID", "Invalid response for ID", "Discarding response for unknown ID"}

func newDrainOnEnd(ch channel.Channel) *drainOnEnd {
	return &drainOnEnd{Channel: ch, changed: make(chan struct{})}
}

// Recv reads the next message; at the end of the stream it first waits
// (at most drainGrace) for the answers read so far to be delivered.
func (d *drainOnEnd) Recv() ([]byte, error) {
	b, err := d.Channel.Recv()
	if err != nil {
		d.wait(drainGrace)
		return b, err
	}
	if protocol.PeekEnvelope(b).Response {
		d.mu.Lock()
		d.read++
		d.mu.Unlock()
	}
	return b, nil
}

// logged sees one line of the client's log.
func (d *drainOnEnd) logged(text string) {
	for _, p := range deliveredLogPrefixes {
		if strings.HasPrefix(text, p) {
			d.mu.Lock()
			d.delivered++
			close(d.changed)
			d.changed = make(chan struct{})
			d.mu.Unlock()
			return
		}
	}
}

// wait returns once every response read was delivered, or after limit.
func (d *drainOnEnd) wait(limit time.Duration) {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		d.mu.Lock()
		done, changed := d.delivered >= d.read, d.changed
		d.mu.Unlock()
		if done {
			return
		}
		select {
		case <-changed:
		case <-timer.C:
			return
		}
	}
}
