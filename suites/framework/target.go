// Package framework connects the conformance suites to a target and gives
// specs what they need: requirement-tagged specs (It), runs with cleanup that
// cannot be forgotten, the fake tool set answered through tool.invoke, and a
// transcript of every request and response attached to failing specs.
package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/targets/container"
	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/onsi/ginkgo/v2"
)

// Connector opens an in-process target: it serves the driver protocol on r/w
// until r is closed. Registered by name with RegisterTarget (the reference is
// "builtin"; broken variants register "fake:<name>").
type Connector func(ctx context.Context, r io.Reader, w io.WriteCloser) error

var (
	connMu     sync.Mutex
	connectors = map[string]Connector{}
)

// RegisterTarget makes an in-process target available as --target name.
func RegisterTarget(name string, c Connector) {
	connMu.Lock()
	defer connMu.Unlock()
	connectors[name] = c
}

// HasTarget reports whether name is a registered in-process target.
func HasTarget(name string) bool {
	connMu.Lock()
	defer connMu.Unlock()
	_, ok := connectors[name]
	return ok
}

// Target is a connected implementation.
type Target struct {
	Spec string
	Init protocol.InitializeResult

	client *jrpc2.Client
	// closer stops the target; graceful is false when it never answered
	// initialize or stopped answering (nothing to wait for). It runs once.
	closer    func(graceful bool) error
	closeOnce sync.Once
	closeErr  error
	ready     bool // initialize succeeded
	stderr    *syncBuffer
	stdout    *stdoutWatch
	proc      *process // exec: targets only
	canary    string   // container: targets only (exec: targets: proc.canary)
	router    *router
	// lost fires once, on the first of: the connection was lost, the target
	// was found unresponsive, the harness closed it. chargedIn is the spec
	// (specSeq) it was charged to, 0 for none.
	lost       sync.Once
	chargedIn  atomic.Int64
	chargedWhy atomic.Pointer[string] // why it was charged
	// floodWhy is set when the harness abandoned the target for flooding it
	// with refused invokes (router.onFlood).
	floodWhy atomic.Pointer[string]
}

// HarnessErrorEntry names the Ginkgo report entry that marks a spec during
// which the target connection was lost (the target process exited or closed
// the connection) or could not be re-established. Reports count such a
// failing spec as an error, not as a failure of its requirement
// (tools/report reads the same name). The value is the reason.
const HarnessErrorEntry = "harness-error"

// ErrUnresponsive is wrapped by the error of a call the target did not
// answer within its deadline: the harness then kills the target (the
// process group of an exec: target; a tcp: connection is closed; an
// in-process target is abandoned), marks the spec running at the time as
// an error "target unresponsive", and the next spec gets a fresh target.
var ErrUnresponsive = errors.New("target unresponsive")

// markHarnessError attaches HarnessErrorEntry to the running spec.
func markHarnessError(reason string) {
	// Outside a running spec (plain unit tests) there is nothing to mark, and
	// Ginkgo panics: ignore that.
	defer func() { _ = recover() }()
	ginkgo.AddReportEntry(HarnessErrorEntry, reason, ginkgo.ReportEntryVisibilityFailureOrVerbose)
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b.Len() > 1<<20 {
		s.b.Reset()
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Connect opens a target: "builtin" or another registered in-process name,
// "exec:<command line>" (spawned, protocol on its stdio), "tcp:<host:port>",
// "container:<image>" (run through testcontainers-go, protocol over TCP to
// its published port; stopped and removed on Close), or a resolvable spec
// such as "openclaw:<version>" (RegisterResolver).
func Connect(ctx context.Context, spec string) (*Target, error) {
	if stopping.Load() {
		return nil, ErrStopping
	}
	t := &Target{Spec: spec, router: newRouter()}
	var r io.Reader
	var w io.WriteCloser
	resolved, err := ResolveTarget(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("target %q: %w", spec, err)
	}
	switch {
	case strings.HasPrefix(resolved, "exec:"):
		cmdline := strings.TrimSpace(strings.TrimPrefix(resolved, "exec:"))
		if cmdline == "" {
			return nil, fmt.Errorf("target %q: empty command", spec)
		}
		t.stderr = &syncBuffer{}
		p, err := spawn(cmdline, t.stderr)
		if err != nil {
			return nil, fmt.Errorf("target %q: %w", spec, err)
		}
		t.proc = p
		r, w = p.stdout, p.stdin
		t.closer = func(graceful bool) error {
			if !graceful {
				return p.close(0)
			}
			return p.close(5 * time.Second)
		}
	case strings.HasPrefix(spec, "tcp:"):
		conn, err := net.DialTimeout("tcp", strings.TrimPrefix(spec, "tcp:"), 10*time.Second)
		if err != nil {
			return nil, fmt.Errorf("target %q: %w", spec, err)
		}
		r, w = conn, conn
		t.closer = func(bool) error { return conn.Close() }
	case strings.HasPrefix(spec, container.Prefix):
		if r, w, err = connectContainer(ctx, t, spec); err != nil {
			return nil, fmt.Errorf("target %q: %w", spec, err)
		}
	default:
		connMu.Lock()
		c, ok := connectors[spec]
		connMu.Unlock()
		if !ok {
			return nil, fmt.Errorf("unknown target %q (want builtin, exec:<command>, tcp:<host:port>, container:<image> or a registered name)", spec)
		}
		// Two pipes: harness → target and target → harness.
		hr, tw := io.Pipe()
		tr, hw := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- c(context.Background(), tr, tw) }()
		r, w = hr, hw
		t.closer = func(graceful bool) error {
			hw.Close()
			if !graceful {
				// Abandon it: a hung in-process target may never close its
				// output, so stop reading now.
				hr.CloseWithError(ErrUnresponsive)
				return nil
			}
			select {
			case err := <-done:
				return err
			case <-time.After(5 * time.Second):
				return fmt.Errorf("in-process target %q did not stop", spec)
			}
		}
	}
	t.stdout = &stdoutWatch{r: r}
	t.router.onRefuse = refusals.add
	t.router.onFlood = t.flooded
	t.client = protocol.NewClient(arrivals{protocol.NewChannel(t.stdout, w), t.router.arrive}, t.router.invoke, t.router.cancel, t.stdout.clientLog)
	ictx, cancel := context.WithTimeout(ctx, Timeouts.Initialize)
	defer cancel()
	if err := t.client.CallResult(ictx, protocol.MethodInitialize, protocol.InitializeParams{
		ProtocolVersion: protocol.Version, Harness: protocol.Peer{Name: HarnessName, Version: HarnessVersion},
	}, &t.Init); err != nil {
		why := err.Error()
		switch {
		case ictx.Err() == context.DeadlineExceeded:
			why = fmt.Sprintf("no answer within %s (%v)", Timeouts.Initialize, err)
		case t.client.IsStopped() && t.stdout.garbled():
			why = "the target's output is not JSON-RPC, so the harness stopped reading"
		case t.client.IsStopped() || closedPipe(err): // a write can fail before the reader sees EOF
			why = fmt.Sprintf("the target closed the connection before answering (%v)", err)
			if t.proc != nil {
				select { // let the exit status arrive
				case <-t.proc.exited:
				case <-time.After(5 * time.Second): // generous: under load reaping a process takes a while
				}
			}
		}
		diag := t.diagnostics() // before Close, which ends the process itself
		t.Close()
		return nil, fmt.Errorf("target %q: initialize: %s%s%s", spec, why, diag, t.stderrTail())
	}
	t.ready = true
	return t, nil
}

// diagnostics explains a dead or misbehaving target: how its process exited
// and any non-protocol lines it printed on stdout.
func (t *Target) diagnostics() string {
	var b strings.Builder
	if t.proc != nil {
		if st := t.proc.exitStatus(); st != "" {
			b.WriteString("\ntarget process " + st)
		}
	}
	if t.stdout != nil {
		b.WriteString(t.stdout.describe())
	}
	return b.String()
}

func (t *Target) stderrTail() string {
	if t.stderr == nil {
		return ""
	}
	s := t.stderr.String()
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	if s == "" {
		return ""
	}
	return "\ntarget stderr:\n" + s
}

// Alive reports whether the connection is still up.
func (t *Target) Alive() bool { return !t.client.IsStopped() }

// HasFeature reports whether the target declared f.
func (t *Target) HasFeature(f string) bool {
	if f == "core" {
		return true
	}
	for _, x := range t.Init.Features {
		if x == f {
			return true
		}
	}
	return false
}

// Call sends one request and decodes its result into out.
//
// When the connection closes under the call, the spec running at the time
// is marked a harness error ("target connection lost"). When ctx ends
// before the answer (its deadline, or the per-spec deadline), the target is
// unresponsive: the error wraps ErrUnresponsive, the target is killed and
// the spec is marked a harness error "target unresponsive".
func (t *Target) Call(ctx context.Context, method string, params, out any) error {
	start := time.Now()
	// A deadline that passed before the call was sent: say so, not "within 0s".
	expired := ""
	switch {
	case specDeadlinePassed():
		expired = "the spec's deadline had already passed when it was sent"
	case ctx.Err() != nil:
		expired = "its deadline had already passed when it was sent"
	}
	var err error
	if out == nil {
		_, err = t.client.Call(ctx, method, params)
	} else {
		err = t.client.CallResult(ctx, method, params, out)
	}
	switch {
	case err == nil:
	case stopping.Load():
		err = fmt.Errorf("%w (the harness is stopping)", err)
	case t.floodWhy.Load() != nil:
		err = fmt.Errorf("%s (%w)", *t.floodWhy.Load(), err)
	case !t.Alive():
		if t.proc != nil { // let the exit status arrive, so the message can name it
			select {
			case <-t.proc.exited:
			case <-time.After(time.Second):
			}
		}
		err = fmt.Errorf("%w (target connection closed)%s%s", err, t.diagnostics(), t.stderrTail())
		t.charge(fmt.Sprintf("target connection lost during %s: %v", method, err))
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || ctx.Err() != nil && specDeadlinePassed():
		why := fmt.Sprintf("no answer to %s within %s", method, time.Since(start).Round(time.Millisecond))
		if expired != "" {
			why = fmt.Sprintf("no answer to %s: %s", method, expired)
		}
		err = fmt.Errorf("%w: %s (%v); the harness killed it, and the next spec gets a fresh target", ErrUnresponsive, why, err)
		t.charge(fmt.Sprintf("target unresponsive: %s; the harness killed it, and the next spec gets a fresh target", why))
		t.abandon()
	}
	return err
}

// charge marks the running spec as the one during which the target was
// lost (once per target).
func (t *Target) charge(reason string) {
	t.lost.Do(func() {
		t.chargedIn.Store(specSeq.Load())
		t.chargedWhy.Store(&reason)
		if inSpec.Load() && hangIsFail.Load() {
			return // the spec fails on the call's error or in endSpec: a failure of its requirement
		}
		markHarnessError(reason)
	})
}

// flooded abandons a target that sent too many refused invokes: the spec
// running now fails with reason (a failure of the target, not a harness
// error), and the next spec gets a fresh target.
func (t *Target) flooded(reason string) {
	t.floodWhy.Store(&reason)
	refusals.flooded(reason)
	t.lost.Do(func() { // charged, but not as a harness error
		t.chargedIn.Store(specSeq.Load())
		t.chargedWhy.Store(&reason)
	})
	t.abandon()
}

// abandon stops the target without asking it anything: the process group
// of an exec: target is killed, a tcp: connection closed, an in-process
// target left behind. Alive is false afterwards.
func (t *Target) abandon() {
	t.stop(false)
	t.client.Close()
}

// stop runs the closer once.
func (t *Target) stop(graceful bool) error {
	t.closeOnce.Do(func() {
		if t.closer != nil {
			t.closeErr = t.closer(graceful)
		}
	})
	return t.closeErr
}

// Canary is the value of CanaryEnv in the environment of an exec: target
// process or a container: target, "" for other targets (the harness does
// not start them).
func (t *Target) Canary() string {
	if t.proc == nil {
		return t.canary
	}
	return t.proc.canary
}

// Stats asks runtime.stats.
func (t *Target) Stats(ctx context.Context) (protocol.Stats, error) {
	var s protocol.Stats
	err := t.Call(ctx, protocol.MethodRuntimeStats, nil, &s)
	return s, err
}

// Close sends shutdown (best effort) and closes the connection.
func (t *Target) Close() error {
	t.lost.Do(func() {}) // a connection the harness closed is not lost
	graceful := t.ready && t.client != nil && t.Alive()
	if graceful {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		t.client.Call(ctx, protocol.MethodShutdown, nil)
		cancel()
	}
	// Stop the target first: closing the client waits for its reader, which
	// only returns once the target's output is closed.
	err := t.stop(graceful)
	if t.client != nil {
		t.client.Close()
		// Forged calls that arrived as it closed (after the shutdown answer,
		// say) were never answered, but are refusals all the same.
		if hook := t.router.onRefuse; hook != nil {
			for _, x := range t.router.unanswered() {
				hook(x)
			}
		}
	}
	return err
}

// arrivals shows each tool.invoke the target sends to see, in wire order,
// before jrpc2 dispatches it (see router.arrive).
type arrivals struct {
	channel.Channel
	see func(protocol.InvokeParams)
}

func (a arrivals) Recv() ([]byte, error) {
	b, err := a.Channel.Recv()
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
		var p protocol.InvokeParams
		if m.Method == protocol.MethodToolInvoke && len(m.ID) > 0 && json.Unmarshal(m.Params, &p) == nil {
			a.see(p)
		}
	}
	return b, err
}
