package framework

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// process is a spawned exec: target. It runs in its own process group so that
// closing the target also stops whatever the command line started (a `go run`
// wrapper's child, a shell pipeline), and it remembers how it exited.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File
	exited chan struct{}
	err    error  // valid once exited is closed
	canary string // the value of CanaryEnv in its environment
}

// CanaryEnv names the environment variable the harness sets, to a fresh
// random value, for every exec: target process it spawns: a value no target
// has a reason to report, so finding it in telemetry or results proves the
// target leaks its environment (CM-TEL-02).
const CanaryEnv = "CODEMODE_CONFORMANCE_CANARY"

// exitGrace is how long the harness keeps reading a target's stdout after the
// target process exited (its last lines may still be in the pipe).
const exitGrace = time.Second

// procs are the exec: targets running now, so that KillTargets can stop
// them all; stopping is set once it ran (no target starts after it).
var (
	procsMu  sync.Mutex
	procs    = map[*process]bool{}
	stopping atomic.Bool
)

// ErrStopping is returned by Connect once KillTargets ran.
var ErrStopping = errors.New("the harness is stopping: no new target is started")

// KillTargets kills the process group of every running exec: target with
// SIGKILL, abandons every target a registry started (Endpoint.Close(false):
// a container is killed and removed) and refuses to start new ones: a harness that got SIGTERM or
// SIGINT calls it first, so that nothing it started outlives it. Calls
// still in flight fail at once. Safe to call more than once.
func KillTargets() {
	procsMu.Lock()
	defer procsMu.Unlock()
	stopping.Store(true)
	for p := range procs {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
	abandonEndpoints()
}

// spawn starts cmdline under /bin/sh with stdin/stdout as the protocol stream
// and stderr captured. The target runs in its own process group (pgid = its
// pid), and (on Linux) its first process gets SIGKILL should the harness die without
// cleaning up.
func spawn(cmdline string, stderr io.Writer) (*process, error) {
	procsMu.Lock()
	defer procsMu.Unlock()
	if stopping.Load() {
		return nil, ErrStopping
	}
	cmd := exec.Command("/bin/sh", "-c", "exec "+cmdline)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	killWithHarness(cmd.SysProcAttr) // process_linux.go
	canary, err := newCanary()
	if err != nil {
		return nil, err
	}
	cmd.Env = append(os.Environ(), CanaryEnv+"="+canary)
	cmd.Stderr = stderr
	// Children that inherit stderr must not keep Wait from reporting the
	// target's own exit.
	cmd.WaitDelay = exitGrace
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// An os.Pipe rather than StdoutPipe: Wait must be able to run while the
	// harness is still reading, so that an exit is noticed at once.
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, err
	}
	pw.Close()
	p := &process{cmd: cmd, stdin: stdin, stdout: pr, exited: make(chan struct{}), canary: canary}
	procs[p] = true
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
		// A child of the target may still hold stdout open: once the target
		// itself is gone, stop reading after a short grace so the harness sees
		// the crash instead of waiting for answers that cannot come.
		time.Sleep(exitGrace)
		p.stdout.Close()
	}()
	return p, nil
}

// newCanary returns a fresh random value for CanaryEnv.
func newCanary() (string, error) {
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return "", err
	}
	return "canary-" + hex.EncodeToString(nonce[:]), nil
}

// exitStatus describes how the process ended, or "" while it runs.
func (p *process) exitStatus() string {
	select {
	case <-p.exited:
		if p.err == nil {
			return "exited with status 0"
		}
		return p.err.Error()
	default:
		return ""
	}
}

// close ends the target: stdin is closed (a well-behaved target exits), the
// whole process group is killed after grace, and stdout is closed.
func (p *process) close(grace time.Duration) error {
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(grace):
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) // stragglers of the group too
	procsMu.Lock()
	delete(procs, p)
	procsMu.Unlock()
	<-p.exited
	p.stdout.Close()
	if p.err != nil && !isKilled(p.err) {
		return p.err
	}
	return nil
}

func isKilled(err error) bool {
	ee, ok := err.(*exec.ExitError)
	if !ok {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// stdoutWatch passes the target's output through unchanged and keeps the
// first few lines that cannot be protocol messages (a log line on stdout is
// the most common adapter bug), so errors can show them.
type stdoutWatch struct {
	r io.Reader

	mu      sync.Mutex
	partial []byte
	junk    []string
	odd     []string // client log lines about messages it could not use
}

// clientLog keeps the JSON-RPC client's complaints about what the target sent
// (undecodable messages, responses to ids the harness never used).
func (s *stdoutWatch) clientLog(text string) {
	if !strings.HasPrefix(text, "Decoding error") && !strings.HasPrefix(text, "Discarding response for unknown ID") &&
		!strings.HasPrefix(text, "Invalid response") {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.odd) < 3 {
		if len(text) > 300 {
			text = text[:300] + "…"
		}
		s.odd = append(s.odd, text)
	}
}

func (s *stdoutWatch) Read(b []byte) (int, error) {
	n, err := s.r.Read(b)
	if n > 0 {
		s.scan(b[:n])
	}
	return n, err
}

func (s *stdoutWatch) scan(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.junk) >= 3 {
		return
	}
	s.partial = append(s.partial, b...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			if len(s.partial) > 4096 { // only the start of a line matters
				s.partial = s.partial[:4096]
			}
			return
		}
		line := bytes.TrimSpace(s.partial[:i])
		s.partial = s.partial[i+1:]
		if len(line) > 0 && line[0] != '{' && len(s.junk) < 3 {
			if len(line) > 200 {
				line = append(line[:200:200], "…"...)
			}
			s.junk = append(s.junk, string(line))
		}
	}
}

// garbled reports whether the target sent something that is not JSON-RPC.
func (s *stdoutWatch) garbled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.junk) > 0 || len(s.odd) > 0
}

// describe names the non-protocol lines seen, or "".
func (s *stdoutWatch) describe() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	if len(s.junk) > 0 {
		fmt.Fprintf(&b, "\ntarget wrote non-protocol lines to stdout (stdout must carry only JSON-RPC lines; log to stderr): %q", s.junk)
	}
	for _, o := range s.odd {
		switch {
		case strings.HasPrefix(o, "Decoding error"):
			fmt.Fprintf(&b, "\nthe harness could not decode a message from the target (%s)", o)
		default:
			fmt.Fprintf(&b, "\nthe harness could not use a response (a response must echo the request id exactly, including its JSON type): %s", o)
		}
	}
	if len(bytes.TrimSpace(s.partial)) > 0 {
		p := s.partial
		if len(p) > 200 {
			p = p[:200]
		}
		fmt.Fprintf(&b, "\ntarget left an unterminated line on stdout (every message must end with \\n): %q", p)
	}
	return b.String()
}
