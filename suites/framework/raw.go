package framework

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/onsi/ginkgo/v2"
)

// RawConn is a connection of its own to the target under test on which a
// spec writes whatever bytes it likes: lines that are not JSON-RPC,
// oversized and unterminated lines, floods, duplicate ids (the protocol-abuse
// suite). It is opened through the same target registry as T(): an exec:
// target is a fresh process, a tcp: or container: target a new connection
// (container: a new container), builtin a new in-process session. What the
// target sends back is kept in arrival order (Received), so specs can judge
// order without timing anything. A nested tool.invoke is answered with
// -32010 (a raw connection serves no tools).
type RawConn struct {
	// Init is the target's answer to initialize.
	Init protocol.InitializeResult

	w      io.WriteCloser
	wmu    sync.Mutex
	closer func(graceful bool) error
	once   sync.Once
	stderr *syncBuffer

	mu     sync.Mutex
	got    []RawMessage
	signal chan struct{} // closed and replaced on every arrival and at EOF
	eof    error         // set once the target's output ended
	nextID int64
	log    []evidence.Exchange
	// ownInvokes: the spec answers tool.invoke itself (AnswerInvokes).
	ownInvokes atomic.Bool
	// tampered: the spec wrote bytes of its own (Write), not only
	// well-formed requests (Send).
	tampered atomic.Bool
}

// AnswerInvokes stops c answering the target's tool.invoke requests with
// -32010: the spec answers them itself (with Write), as it likes.
func (c *RawConn) AnswerInvokes() { c.ownInvokes.Store(true) }

// RawMessage is one line the target sent, decoded as far as it is a
// JSON-RPC message. Seq is its position in arrival order (from 1).
type RawMessage struct {
	Seq    int
	ID     json.RawMessage // absent for a notification or an undecodable line
	Method string          // set for requests and notifications from the target
	Params json.RawMessage
	Result json.RawMessage
	Error  *RawError
	// Line is the line as received (cut at rawKeep bytes); Junk is set when
	// it is not a JSON object.
	Line string
	Junk bool
}

// RawError is the error member of a response.
type RawError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// IsResponse reports whether m answers a request (it has result or error).
func (m RawMessage) IsResponse() bool { return m.Method == "" && (m.Result != nil || m.Error != nil) }

// HasID reports whether m carries id (compared as JSON values: 7 and 7.0
// differ from "7").
func (m RawMessage) HasID(id any) bool { return sameID(m.ID, id) }

func (m RawMessage) String() string { return m.Line }

// Limits of a raw connection: a line longer than MaxMessageBytes (the
// harness's bound) is discarded, so the harness stays bounded whatever the
// target sends, and at most rawKeep bytes of each line are kept.
const (
	rawKeep = 4 << 10
	rawLog  = 400 // transcript entries kept (the latest)
)

// ErrRawClosed is returned by RawConn waits once the target's output ended.
var ErrRawClosed = errors.New("the target closed the raw connection")

// OpenRaw opens a raw connection to the target under test and sends
// initialize. The connection is closed when the spec ends; a failing spec
// carries its transcript (the report entry "transcript raw connection").
// A target that cannot be opened or does not answer initialize fails the
// spec as a harness error.
func OpenRaw(ctx context.Context) *RawConn {
	ginkgo.GinkgoHelper()
	c, err := dialRaw(ctx, current.Target)
	if err != nil {
		markHarnessError(fmt.Sprintf("could not open a raw connection to the target: %v", err))
		ginkgo.Fail(fmt.Sprintf("harness could not open a raw connection to the target: %v", err))
	}
	ginkgo.DeferCleanup(func() {
		if wantsEvidence() {
			ginkgo.AddReportEntry(evidence.TranscriptPrefix+"raw connection", c.Evidence(), ginkgo.ReportEntryVisibilityFailureOrVerbose)
		}
		c.Close()
	})
	ictx, cancel := context.WithTimeout(ctx, Timeouts.Initialize)
	defer cancel()
	m, err := c.Call(ictx, protocol.MethodInitialize, protocol.InitializeParams{
		ProtocolVersion: protocol.Version, Harness: protocol.Peer{Name: HarnessName, Version: HarnessVersion}, Token: TargetToken()})
	if err == nil && m.Error != nil {
		err = fmt.Errorf("error %d %s", m.Error.Code, m.Error.Message)
	}
	if err == nil {
		err = json.Unmarshal(m.Result, &c.Init)
	}
	if err != nil {
		markHarnessError(fmt.Sprintf("raw connection: initialize: %v%s", err, c.stderrTail()))
		ginkgo.Fail(fmt.Sprintf("raw connection: initialize: %v%s", err, c.stderrTail()))
	}
	return c
}

// dialRaw resolves spec through the installed Opener and connects to it.
func dialRaw(ctx context.Context, spec string) (*RawConn, error) {
	c := &RawConn{stderr: &syncBuffer{}, signal: make(chan struct{})}
	ep, err := openEndpoint(ctx, spec, c.stderr)
	if err != nil {
		return nil, err
	}
	l, err := connect(spec, ep, c.stderr)
	if err != nil {
		if ep.Close != nil {
			_ = ep.Close(false)
		}
		return nil, err
	}
	c.w, c.closer = l.w, l.close
	go c.read(l.r)
	return c, nil
}

// read keeps every line the target sends, in order, until its output ends.
func (c *RawConn) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	limit := MaxMessageBytes
	var line []byte
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !over {
			line = append(line, chunk...)
			if len(line) > limit {
				over, line = true, append(line[:rawKeep:rawKeep], fmt.Sprintf("…(over %d bytes, discarded)", limit)...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(bytes.TrimSpace(line)) > 0 {
			c.arrive(bytes.TrimRight(line, "\r\n"))
		}
		line, over = line[:0], false
		if err != nil {
			c.mu.Lock()
			c.eof = err
			c.wake()
			c.mu.Unlock()
			return
		}
	}
}

func (c *RawConn) arrive(line []byte) {
	m := RawMessage{Line: cutText(line)}
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  *RawError       `json:"error"`
	}
	if t := bytes.TrimSpace(line); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &env) != nil {
		m.Junk = true
	} else {
		m.ID, m.Method, m.Params, m.Result, m.Error = env.ID, env.Method, env.Params, env.Result, env.Error
	}
	if m.Method == protocol.MethodToolInvoke && len(m.ID) > 0 && !c.ownInvokes.Load() {
		go c.writeLine(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{
			"code": protocol.ErrToolFailed, "message": "the harness's raw connection serves no tools"}})
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	m.Seq = len(c.got) + 1
	c.got = append(c.got, m)
	c.record(evidence.Exchange{Method: "received", Response: m.Line})
	c.wake()
}

// wake tells every waiter that something arrived (c.mu held).
func (c *RawConn) wake() {
	close(c.signal)
	c.signal = make(chan struct{})
}

func (c *RawConn) record(e evidence.Exchange) {
	if len(c.log) >= rawLog {
		c.log = c.log[1:]
	}
	c.log = append(c.log, e)
}

// Write sends b as it is: no newline is added. From then on the
// connection carries the spec's own bytes, so a target that closes it is
// the spec's to judge (Call no longer charges the loss as an error).
func (c *RawConn) Write(b []byte) error {
	c.tampered.Store(true)
	return c.write(b)
}

func (c *RawConn) write(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(b)
	c.mu.Lock()
	c.record(evidence.Exchange{Method: "sent", Request: cutText(redactToken(b)), Cut: len(b) > rawKeep})
	c.mu.Unlock()
	return err
}

// writeLine sends v as one JSON line.
func (c *RawConn) writeLine(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.write(append(b, '\n'))
}

// NewID returns a fresh integer request id.
func (c *RawConn) NewID() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	return c.nextID
}

// Send writes the request {id, method, params} (params left out when nil).
func (c *RawConn) Send(id any, method string, params any) error {
	noteSent(method)
	m := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	return c.writeLine(m)
}

// Notify writes the notification {method, params}.
func (c *RawConn) Notify(method string, params any) error {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	return c.writeLine(m)
}

// Call sends a request with a fresh id and waits for its response.
func (c *RawConn) Call(ctx context.Context, method string, params any) (RawMessage, error) {
	id := c.NewID()
	if err := c.Send(id, method, params); err != nil {
		return RawMessage{}, fmt.Errorf("%s: %w", method, err)
	}
	m, err := c.Response(ctx, id)
	if err != nil {
		if errors.Is(err, ErrRawClosed) && !c.tampered.Load() && !hangFails() {
			// The harness's own well-formed request, and the target died
			// under it: a crash is an error of the spec, not a failure of
			// its requirement (as Target.Call charges it).
			markHarnessError(fmt.Sprintf("target connection lost during %s (raw connection): %v", method, err))
		}
		return m, fmt.Errorf("%s: %w", method, err)
	}
	return m, nil
}

// Response waits for the first response carrying id.
func (c *RawConn) Response(ctx context.Context, id any) (RawMessage, error) {
	return c.WaitFor(ctx, func(m RawMessage) bool { return m.IsResponse() && m.HasID(id) })
}

// WaitFor waits until a received line matches ok and returns the first
// that does; it fails with ErrRawClosed once the target's output ended
// without one, or with ctx's error.
func (c *RawConn) WaitFor(ctx context.Context, ok func(RawMessage) bool) (RawMessage, error) {
	seen := 0
	for {
		c.mu.Lock()
		for ; seen < len(c.got); seen++ {
			if ok(c.got[seen]) {
				m := c.got[seen]
				c.mu.Unlock()
				return m, nil
			}
		}
		eof, signal := c.eof, c.signal
		c.mu.Unlock()
		if eof != nil {
			return RawMessage{}, fmt.Errorf("%w (%v)%s", ErrRawClosed, eof, c.stderrTail())
		}
		select {
		case <-signal:
		case <-ctx.Done():
			return RawMessage{}, fmt.Errorf("no such message from the target: %w", ctx.Err())
		}
	}
}

// Received returns every line the target sent so far, in arrival order.
func (c *RawConn) Received() []RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]RawMessage(nil), c.got...)
}

// Closed reports whether the target's output ended (it closed the
// connection or exited).
func (c *RawConn) Closed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.eof != nil
}

// Done is closed once the target's output ended.
func (c *RawConn) Done() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c.mu.Lock()
			eof, signal := c.eof, c.signal
			c.mu.Unlock()
			if eof != nil {
				return
			}
			<-signal
		}
	}()
	return done
}

// Close ends the connection: a graceful shutdown is not attempted (the
// connection may be mid-line); the process or container is stopped.
func (c *RawConn) Close() error {
	var err error
	c.once.Do(func() {
		c.w.Close()
		err = c.closer(!c.Closed())
	})
	return err
}

// Evidence is the connection's transcript: the last lines sent and
// received, in order, each cut at 4 KiB.
func (c *RawConn) Evidence() evidence.Transcript {
	c.mu.Lock()
	defer c.mu.Unlock()
	return evidence.Transcript{Run: "raw connection", Exchanges: append([]evidence.Exchange(nil), c.log...)}
}

func (c *RawConn) stderrTail() string {
	s := c.stderr.String()
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	if s == "" {
		return ""
	}
	return "\ntarget stderr:\n" + s
}

// sameID compares a received id with a wanted one as JSON values.
func sameID(got json.RawMessage, want any) bool {
	if len(got) == 0 {
		return false
	}
	w, err := json.Marshal(want)
	if err != nil {
		return false
	}
	return bytes.Equal(bytes.TrimSpace(got), w)
}

func cutText(b []byte) string {
	if len(b) > rawKeep {
		return string(b[:rawKeep]) + fmt.Sprintf("…(%d bytes)", len(b))
	}
	return string(b)
}
