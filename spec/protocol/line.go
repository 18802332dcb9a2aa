package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/creachadair/jrpc2/channel"
)

// DefaultMaxMessageBytes is the default bound on one message a peer reads:
// 16 MiB, not counting the newline (spec/protocol.md §1).
const DefaultMaxMessageBytes = 16 << 20

// headBytes is how much of an oversized line is kept to read its id.
const headBytes = 4096

// closeGrace is how long Close lets queued messages drain to a peer that
// reads slowly before it closes the writer anyway.
const closeGrace = 2 * time.Second

// OversizedError is what LineChannel.Recv returns for a line longer than
// its bound. The line was read to its end (or to EOF) and dropped without
// being kept; the channel stays usable. ID and Method are read from the
// line's first 4 KiB when they are there (ID is nil otherwise).
type OversizedError struct {
	Limit int   // the bound, bytes
	Size  int64 // bytes of the line, without the newline
	// Terminated is false when the stream ended inside the line, or when
	// the channel stops at the bound (StopAtOversized): Size is then what
	// was read.
	Terminated bool
	ID         json.RawMessage
	Method     string
	// Response is set when the line's start shows a response (result or
	// error and no method).
	Response bool
}

func (e *OversizedError) Error() string {
	if !e.Terminated {
		return fmt.Sprintf("message of at least %d bytes (no newline read) exceeds the limit of %d bytes", e.Size, e.Limit)
	}
	return fmt.Sprintf("message of %d bytes exceeds the limit of %d bytes", e.Size, e.Limit)
}

// LineChannel is the protocol's framing (spec/protocol.md §1): one JSON
// message per line, each read bounded by a maximum size, written without
// HTML escaping (see UnescapeHTML). It implements jrpc2's channel.Channel.
//
// Reads never keep more than the bound of one line: the rest of an
// oversized line is read and dropped, and Recv returns *OversizedError.
//
// Writes go through a queue drained by a writer goroutine, so that a
// sender (jrpc2 holds its lock while it sends) never blocks the read loop
// while the peer is itself blocked writing to us: a peer that writes its
// replies from its own read loop would otherwise deadlock with us. The
// queue holds at most twice the bound or twice DefaultMaxMessageBytes,
// whichever is larger (and always one message); past that, Send blocks
// until the peer reads.
type LineChannel struct {
	r    *bufio.Reader
	max  int
	stop bool  // StopAtOversized
	fail error // the OversizedError that stopped reading

	w        io.WriteCloser
	mu       sync.Mutex
	cond     *sync.Cond
	queue    [][]byte
	queued   int
	maxQueue int
	err      error // the first write error; later Sends return it
	closing  bool
	started  bool
	done     chan struct{} // closed when the writer goroutine has closed w
}

// NewChannel frames messages over r and w with DefaultMaxMessageBytes.
func NewChannel(r io.Reader, w io.WriteCloser) channel.Channel {
	return NewLineChannel(r, w, DefaultMaxMessageBytes)
}

// NewLineChannel frames messages over r and w, reading at most maxBytes per
// message (DefaultMaxMessageBytes when maxBytes <= 0).
func NewLineChannel(r io.Reader, w io.WriteCloser, maxBytes int) *LineChannel {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxMessageBytes
	}
	c := &LineChannel{r: bufio.NewReaderSize(r, 64<<10), max: maxBytes, w: w, maxQueue: 2 * max(maxBytes, DefaultMaxMessageBytes), done: make(chan struct{})}
	c.cond = sync.NewCond(&c.mu)
	return c
}

// StopAtOversized makes Recv return *OversizedError as soon as a line
// passes the bound, without reading the rest of it; every later Recv
// returns the same error. For a side that gives up on a peer that sent one
// (the harness: a target writing 1 GiB with no newline is caught at the
// bound, not when it ends the line). It returns c.
func (c *LineChannel) StopAtOversized() *LineChannel {
	c.stop = true
	return c
}

// MaxMessageBytes is the channel's read bound.
func (c *LineChannel) MaxMessageBytes() int { return c.max }

// Recv returns the next line without its newline. At EOF it returns a last
// unterminated line with io.EOF, as jrpc2's line framing does.
func (c *LineChannel) Recv() ([]byte, error) {
	if c.fail != nil {
		return nil, c.fail
	}
	// The line is kept as copies of the reader's chunks and joined once at
	// its end: growing one buffer would leave several times the bound of
	// garbage behind on the way to a long line.
	var parts [][]byte
	var head []byte
	var size int64
	over := false
	for {
		chunk, err := c.r.ReadSlice('\n')
		if err == nil {
			chunk = chunk[:len(chunk)-1]
		}
		size += int64(len(chunk))
		switch {
		case over:
		case size > int64(c.max):
			over = true
			head = make([]byte, 0, headBytes)
			for _, p := range append(parts, chunk) {
				head = append(head, p[:min(len(p), headBytes-len(head))]...)
			}
			parts = nil
		case len(chunk) > 0:
			parts = append(parts, bytes.Clone(chunk))
		}
		if over && (err != bufio.ErrBufferFull || c.stop) {
			e := &OversizedError{Limit: c.max, Size: size, Terminated: err == nil}
			e.ID, e.Method, e.Response = peekEnvelope(head)
			if c.stop {
				c.fail = e
			}
			return nil, e
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		line := joinParts(parts, int(size))
		if err != nil && len(line) == 0 {
			return nil, err
		}
		return line, err
	}
}

// joinParts joins parts (size bytes in all) into one slice.
func joinParts(parts [][]byte, size int) []byte {
	switch len(parts) {
	case 0:
		return []byte{}
	case 1:
		return parts[0]
	}
	out := make([]byte, 0, size)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// peekEnvelope reads id and method from the start of a message, as far as
// they are complete in head (members in any order; a member whose value is
// cut off ends the search).
func peekEnvelope(head []byte) (id json.RawMessage, method string, response bool) {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, "", false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			break
		}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			key, _ := k.(string)
			if key == "result" || key == "error" {
				response = method == ""
			}
			break
		}
		switch k {
		case "id":
			if validID(raw) {
				id = raw
			}
		case "method":
			_ = json.Unmarshal(raw, &method)
		case "result", "error":
			response = method == ""
		}
	}
	return id, method, response && method == ""
}

// Send writes msg and a newline (msg must not contain a newline). It
// returns once msg is queued; a write error is returned by a later Send.
func (c *LineChannel) Send(msg []byte) error {
	if bytes.IndexByte(msg, '\n') >= 0 {
		return errors.New("protocol: message contains a newline")
	}
	msg = UnescapeHTML(msg)
	out := make([]byte, len(msg)+1)
	copy(out, msg)
	out[len(msg)] = '\n'
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.err == nil && !c.closing && c.queued > 0 && c.queued+len(out) > c.maxQueue {
		c.cond.Wait()
	}
	if c.err != nil {
		return c.err
	}
	if c.closing {
		return channel.ErrClosed
	}
	if !c.started {
		c.started = true
		go c.write()
	}
	c.queue = append(c.queue, out)
	c.queued += len(out)
	c.cond.Broadcast()
	return nil
}

// write drains the queue until Close, then closes w.
func (c *LineChannel) write() {
	defer close(c.done)
	c.mu.Lock()
	for {
		for len(c.queue) == 0 && !c.closing {
			c.cond.Wait()
		}
		if len(c.queue) == 0 || c.err != nil {
			c.mu.Unlock()
			c.w.Close()
			return
		}
		batch := net.Buffers(c.queue)
		n := 0
		for _, b := range c.queue {
			n += len(b)
		}
		c.queue = nil
		c.mu.Unlock()
		_, err := batch.WriteTo(c.w)
		c.mu.Lock()
		c.queued -= n // counted until written, so the bound holds what is in flight too
		if err != nil && c.err == nil {
			c.err = err
		}
		c.cond.Broadcast()
	}
}

// Close stops sending: messages already queued are written first (for at
// most closeGrace), then the writer is closed. The reader is not closed.
func (c *LineChannel) Close() error {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return nil
	}
	c.closing = true
	started := c.started
	c.cond.Broadcast()
	c.mu.Unlock()
	if !started {
		return c.w.Close()
	}
	select {
	case <-c.done:
	case <-time.After(closeGrace):
		c.w.Close() // a peer that does not read: unblock the writer
		<-c.done
	}
	return nil
}

// validID reports whether raw is a JSON-RPC id: a string, a number or null.
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	}
	return string(raw) == "null"
}
