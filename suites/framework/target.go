// Package framework connects the conformance suites to a target and gives
// specs what they need: requirement-tagged specs (It), runs with cleanup that
// cannot be forgotten, the fake tool set answered through tool.invoke, and a
// transcript of every request and response attached to failing specs.
package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/creachadair/jrpc2"
	"github.com/onsi/ginkgo/v2"
)

// Connector serves an in-process target: it speaks the driver protocol on
// r/w until r is closed.
type Connector func(ctx context.Context, r io.Reader, w io.WriteCloser) error

// Endpoint is how the harness reaches one target connection, as a target
// registry resolved a --target spec: exactly one of Command, Address and
// Serve is set.
type Endpoint struct {
	// Command is a command line the harness spawns under /bin/sh, the
	// protocol on its stdio (an exec: target).
	Command string
	// Address is host:port of a target serving the protocol over TCP.
	Address string
	// Serve is an in-process target, reached through pipes.
	Serve Connector
	// Canary is OpenOptions.Canary when the registry put it into the
	// environment of a target it started (Target.Canary reports it).
	Canary string
	// Close, if set, runs once after the connection closed: graceful is
	// false when the harness abandons the target (unresponsive, killed on
	// SIGINT/SIGTERM), so whatever Open started is stopped at once (a
	// container: target's container is killed and removed).
	Close func(graceful bool) error
}

// OpenOptions is what the harness gives a registry for one connection.
type OpenOptions struct {
	// Canary is a fresh random value for CanaryEnv, for a registry that
	// starts the target itself (exec: targets get theirs from the harness).
	Canary string
	// Logs receives the target's own output; failures quote its tail as
	// "target stderr".
	Logs io.Writer
}

// Opener resolves a --target spec into an Endpoint. The framework knows no
// target names: package targets (github.com/codemode-conformance/codemode/targets)
// owns the syntax and installs its Open with UseTargets when imported.
type Opener func(ctx context.Context, spec string, o OpenOptions) (Endpoint, error)

var (
	openMu sync.Mutex
	opener Opener
	// endpoints are the live connections whose endpoint has a Close, so
	// that KillTargets can abandon them all.
	endpoints = map[*Target]func(bool) error{}
)

// UseTargets sets the Opener through which Connect resolves target specs.
func UseTargets(o Opener) {
	openMu.Lock()
	defer openMu.Unlock()
	opener = o
}

// abandonEndpoints stops every target a registry started, at once.
func abandonEndpoints() {
	openMu.Lock()
	list := make([]func(bool) error, 0, len(endpoints))
	for _, c := range endpoints {
		list = append(list, c)
	}
	openMu.Unlock()
	for _, c := range list {
		_ = c(false)
	}
}

// ErrNoTargets is returned by Connect when no target registry is installed.
var ErrNoTargets = errors.New(`no target registry: import _ "github.com/codemode-conformance/codemode/targets" (exec:, tcp:, openclaw:) or _ "github.com/codemode-conformance/codemode/targets/builtin" (also builtin and fake:*)`)

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
	ready     bool        // initialize succeeded
	stderr    *syncBuffer // the target's own output (stderr, container logs)
	canary    string      // Endpoint.Canary
	stdout    *stdoutWatch
	proc      *process // exec: targets only
	router    *router
	// lost fires once, on the first of: the connection was lost, the target
	// was found unresponsive, the harness closed it. chargedIn is the spec
	// (specSeq) it was charged to, 0 for none.
	lost       sync.Once
	chargedIn  atomic.Int64
	chargedWhy atomic.Pointer[string] // why it was charged
	// chargedFailing is set when the loss was charged while a hang or
	// crash was the running spec's failure (hangFails): a loss outside it
	// may stop a spec as blocked (LossBlockedBy).
	chargedFailing atomic.Bool
	// floodWhy is set when the harness abandoned the target for flooding it
	// with refused invokes (router.onFlood) or too many outstanding ones
	// (arrivals).
	floodWhy atomic.Pointer[string]
	// faultWhy is set when the harness abandoned the target for a fault of
	// the wire (an oversized message): the spec is an error.
	faultWhy atomic.Pointer[string]
}

// HarnessErrorEntry names the Ginkgo report entry that marks a spec during
// which the target connection was lost (the target process exited or closed
// the connection) or could not be re-established. Reports count such a
// failing spec as an error, not as a failure of its requirement. The value
// is the reason.
const HarnessErrorEntry = evidence.HarnessErrorEntry

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

// Connect opens a target named by spec (the --target syntax of package
// targets, through the installed Opener) and sends initialize.
func Connect(ctx context.Context, spec string) (*Target, error) {
	logs := &syncBuffer{}
	ep, err := openEndpoint(ctx, spec, logs)
	if err != nil {
		return nil, err
	}
	t, err := dial(spec, ep, logs)
	if err == nil && stopping.Load() { // KillTargets ran while it opened
		t.abandon()
		return nil, ErrStopping
	}
	if err != nil {
		if ep.Close != nil {
			_ = ep.Close(false)
		}
		return nil, err
	}
	if err := t.initialize(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

// openEndpoint resolves spec through the installed Opener with a fresh
// canary; logs receives the target's own output. It fails with
// ErrStopping once KillTargets ran and with ErrNoTargets without an Opener.
func openEndpoint(ctx context.Context, spec string, logs *syncBuffer) (Endpoint, error) {
	if stopping.Load() {
		return Endpoint{}, ErrStopping
	}
	openMu.Lock()
	open := opener
	openMu.Unlock()
	if open == nil {
		return Endpoint{}, fmt.Errorf("target %q: %w", spec, ErrNoTargets)
	}
	canary, err := newCanary()
	if err != nil {
		return Endpoint{}, err
	}
	ep, err := open(ctx, spec, OpenOptions{Canary: canary, Logs: logs})
	if err != nil {
		return Endpoint{}, fmt.Errorf("target %q: %w", spec, err)
	}
	return ep, nil
}

// link is the byte stream to an opened endpoint.
type link struct {
	r    io.Reader      // what the target sends
	w    io.WriteCloser // what it reads
	proc *process       // exec: targets only
	// close ends the connection (graceful: the target gets time to stop)
	// and runs ep.Close, which KillTargets also runs while the link is open.
	close func(graceful bool) error
}

// connect opens the byte stream to ep: the command's stdio, a TCP
// connection, or pipes to an in-process server. logs receives the
// command's stderr.
func connect(spec string, ep Endpoint, logs *syncBuffer) (link, error) {
	var l link
	var closer func(graceful bool) error
	switch {
	case strings.TrimSpace(ep.Command) != "":
		p, err := spawn(strings.TrimSpace(ep.Command), logs)
		if err != nil {
			return l, fmt.Errorf("target %q: %w", spec, err)
		}
		l.proc = p
		l.r, l.w = p.stdout, p.stdin
		closer = func(graceful bool) error {
			if !graceful {
				return p.close(0)
			}
			return p.close(5 * time.Second)
		}
	case ep.Address != "":
		conn, err := net.DialTimeout("tcp", ep.Address, 10*time.Second)
		if err != nil {
			return l, fmt.Errorf("target %q: %w", spec, err)
		}
		l.r, l.w = conn, conn
		closer = func(bool) error {
			// The protocol client may already have closed it after shutdown.
			if err := conn.Close(); !errors.Is(err, net.ErrClosed) {
				return err
			}
			return nil
		}
	case ep.Serve != nil:
		// Two pipes: harness → target and target → harness.
		hr, tw := io.Pipe()
		tr, hw := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- ep.Serve(context.Background(), tr, tw) }()
		l.r, l.w = hr, hw
		closer = func(graceful bool) error {
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
	default:
		return l, fmt.Errorf("target %q: the registry gave no command, address or in-process server", spec)
	}
	l.close = closer
	if ep.Close != nil {
		var once sync.Once
		var cerr error
		stop := func(graceful bool) error {
			once.Do(func() { cerr = ep.Close(graceful) })
			return cerr
		}
		key := &Target{} // the key under which KillTargets finds it
		openMu.Lock()
		endpoints[key] = stop
		openMu.Unlock()
		l.close = func(graceful bool) error {
			openMu.Lock()
			delete(endpoints, key)
			openMu.Unlock()
			return errors.Join(closer(graceful), stop(graceful))
		}
	}
	return l, nil
}

// dial opens the connection to an endpoint; logs holds the target's own
// output. Close of the returned target also runs ep.Close.
func dial(spec string, ep Endpoint, logs *syncBuffer) (*Target, error) {
	t := &Target{Spec: spec, router: newRouter(), stderr: logs, canary: ep.Canary}
	l, err := connect(spec, ep, logs)
	if err != nil {
		return nil, err
	}
	t.proc, t.closer = l.proc, l.close
	r, w := l.r, l.w
	t.stdout = &stdoutWatch{r: r}
	t.router.onRefuse = refusals.add
	t.router.onFlood = t.flooded
	a := &arrivals{see: t.router.arrive, malformed: t.router.malformed, onFlood: t.flooded, onOversize: t.oversized}
	a.Channel = validating(spec, protocol.NewLineChannel(t.stdout, writeHook{w, a.written}, MaxMessageBytes).StopAtOversized()) // validate.go
	d := newDrainOnEnd(a)
	logf := func(text string) { d.logged(text); t.stdout.clientLog(text) }
	t.client = protocol.NewClient(d, t.router.invoke, t.router.cancel, logf, runGates{})
	t.router.notify = t.client.Notify
	return t, nil
}

// initialize sends initialize and explains a target that does not answer
// it; on error the target is closed.
func (t *Target) initialize(ctx context.Context) error {
	spec := t.Spec
	ictx, cancel := context.WithTimeout(ctx, Timeouts.Initialize)
	defer cancel()
	if err := t.client.CallResult(ictx, protocol.MethodInitialize, protocol.InitializeParams{
		ProtocolVersion: protocol.Version, Harness: protocol.Peer{Name: HarnessName, Version: HarnessVersion}, Token: TargetToken(),
	}, &t.Init); err != nil {
		why := err.Error()
		switch {
		case ictx.Err() == context.DeadlineExceeded:
			why = fmt.Sprintf("no answer within %s (%v)", Timeouts.Initialize, err)
		case t.faultWhy.Load() != nil:
			why = *t.faultWhy.Load()
		case t.floodWhy.Load() != nil:
			why = *t.floodWhy.Load()
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
		return fmt.Errorf("target %q: initialize: %s%s%s", spec, why, diag, t.stderrTail())
	}
	boundInit(&t.Init)
	t.ready = true
	return nil
}

// Bounds on what initialize's answer may put into reports: a target's
// name, version, features and not-drivable reasons are copied into every
// report, so a hostile one must not make them huge.
const (
	maxInitText    = 200
	maxInitReason  = 1000
	maxInitEntries = 100
)

// boundInit cuts each text of an initialize result to its bound (marking
// the cut with the original size) and its lists to maxInitEntries.
func boundInit(r *protocol.InitializeResult) {
	r.Implementation.Name = boundText(r.Implementation.Name, maxInitText)
	r.Implementation.Version = boundText(r.Implementation.Version, maxInitText)
	r.ProtocolVersion = boundText(r.ProtocolVersion, maxInitText)
	if len(r.Features) > maxInitEntries {
		r.Features = r.Features[:maxInitEntries]
	}
	for i, f := range r.Features {
		r.Features[i] = boundText(f, maxInitText)
	}
	if len(r.NotDrivable) > maxInitEntries {
		r.NotDrivable = r.NotDrivable[:maxInitEntries]
	}
	for i := range r.NotDrivable {
		n := &r.NotDrivable[i]
		n.Requirement = boundText(n.Requirement, maxInitText)
		n.Surface = boundText(n.Surface, maxInitText)
		n.Feature = boundText(n.Feature, maxInitText)
		n.Reason = boundText(n.Reason, maxInitReason)
	}
}

// boundText returns s, or its first max bytes (cut at a UTF-8 boundary)
// followed by "… (N bytes)".
func boundText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
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
	noteSent(method)
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
	case t.faultWhy.Load() != nil:
		err = fmt.Errorf("%s (%w)", *t.faultWhy.Load(), err)
	case !t.Alive() || closedPipe(err): // a write can fail before the reader sees the close
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
		if hangFails() {
			t.chargedFailing.Store(true)
			return // the spec fails on the call's error or in endSpec: a failure of its requirement
		}
		markHarnessError(reason)
	})
}

// flooded abandons a target that sent too many refused invokes: the spec
// running now fails with reason (a failure of the target, not a harness
// error), and the next spec gets a fresh target.
func (t *Target) flooded(reason string) {
	if !t.floodWhy.CompareAndSwap(nil, &reason) {
		return // the first flood is the one reported
	}
	refusals.flooded(reason)
	t.lost.Do(func() { // charged, but not as a harness error
		t.chargedIn.Store(specSeq.Load())
		t.chargedWhy.Store(&reason)
	})
	t.abandon()
}

// oversized abandons a target that sent a message over MaxMessageBytes:
// the spec running is an error (a fault of the target, not a failure of
// its requirement) naming the size, and the next spec gets a fresh target.
// It runs on the reader, which stops.
func (t *Target) oversized(e *protocol.OversizedError) {
	what := "a message"
	if e.Method != "" {
		what = "a " + e.Method + " request"
	} else if e.Response {
		what = "a response"
	}
	size := fmt.Sprintf("%d bytes", e.Size)
	if !e.Terminated {
		size = fmt.Sprintf("more than %d bytes (the harness stopped reading at %d)", e.Limit, e.Size)
	}
	reason := fmt.Sprintf("target fault: it sent %s of %s, over the harness's maximum message size of %d bytes (spec/protocol.md §1; --max-message-bytes); the harness stopped reading and killed it",
		what, size, e.Limit)
	t.faultWhy.Store(&reason)
	t.charge(reason)
	go t.abandon() // abandon waits for the reader, which is the caller
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
// process or of a target its registry started with it (Endpoint.Canary),
// "" for other targets (the harness does not start them).
func (t *Target) Canary() string {
	if t.proc != nil {
		return t.proc.canary
	}
	return t.canary
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
