package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/codemode-conformance/codemode/internal/subcmd"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/suites/framework/dialect"
	"github.com/codemode-conformance/codemode/targets"
	"github.com/codemode-conformance/codemode/tools/report"
)

// smokeBudget bounds a whole smoke check (each step has its share).
const smokeBudget = 9 * time.Second

// smokeCommand checks in seconds that a target speaks the driver protocol
// (spec/protocol.md §1-§3): the initialize handshake, its declared
// features and profile, one trivial cell, one nested call (tool.invoke)
// and shutdown. It reads the target's stream line by line itself, so that
// each typical mistake gets its own diagnosis (smokeDiagnosis). A target
// answering runtime_unavailable (the `init` skeleton) passes: smoke checks
// the protocol, not the engine. Exit 0 when every step passes, 1 on the
// first diagnosis, 2 on usage.
func smokeCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("smoke", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tgt := fs.String("target", os.Getenv(framework.TargetEnv), "the target (exec:CMD, tcp:HOST:PORT, builtin, fake:<variant>)")
	budget := fs.Duration("timeout", smokeBudget, "bound on the whole check, process start included")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: codemode-conformance smoke --target T\n\nChecks in under 10 s that T speaks the driver protocol: initialize (features, profile), one trivial\ncell, one nested call, shutdown. Prints one line per step and, for a fault, a diagnosis: stdout\npollution, a missing newline, ids not echoed, an unknown feature, a crash with output on stderr only.\nExit status: 0 all steps pass, 1 a diagnosis, 2 usage.\n\nFlags:")
		fs.PrintDefaults()
	}
	if code, done := subcmd.Parse(fs, args, stdout); done {
		return code
	}
	if *tgt == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "smoke takes --target T and no arguments (see smoke -h)")
		return 2
	}
	if err := targets.Check(*tgt); err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), *budget)
	defer cancel()
	s, err := dialSmoke(ctx, *tgt)
	if err != nil {
		fmt.Fprintf(stdout, "FAIL connect: %s\n", report.Clean(err.Error()))
		return 1
	}
	defer s.close()
	for _, step := range smokeSteps {
		note, err := step.check(ctx, s)
		if err != nil {
			fmt.Fprintf(stdout, "FAIL %s: %s\n", step.name, report.Clean(err.Error())) // quotes the target's output: one line, escaped (issue 28 N5)
			fmt.Fprintf(stdout, "smoke: %s does not pass (exit 1)\n", *tgt)
			return 1
		}
		fmt.Fprintf(stdout, "ok   %s%s\n", step.name, note)
	}
	fmt.Fprintf(stdout, "smoke: %s speaks the driver protocol (exit 0); next: codemode-conformance run --target %q\n", *tgt, *tgt)
	return 0
}

// smokeDiagnosis is one typical mistake, matched by tests with errors.Is.
type smokeDiagnosis string

func (d smokeDiagnosis) Error() string { return string(d) }

// The typical mistakes smoke names.
var (
	errStdoutPollution = smokeDiagnosis("stdout pollution: the target wrote a line that is not a JSON-RPC message to stdout (spec/protocol.md §1: stdout carries only protocol messages; log to stderr)")
	errMissingNewline  = smokeDiagnosis("missing newline: the target wrote a message without the newline that ends it (spec/protocol.md §1: one JSON object per line, each ended by \\n; flush after it)")
	errIDNotEchoed     = smokeDiagnosis("ids not echoed: the response's id is not the request's (JSON-RPC 2.0: a response carries the id of its request, unchanged, with its type)")
	errUnknownFeature  = smokeDiagnosis("unknown feature: initialize declares a feature name that is not in spec/protocol.md §9")
	errCrashed         = smokeDiagnosis("crash: the target exited or closed the stream before answering")
	errNoAnswer        = smokeDiagnosis("no answer: the target did not answer in time")
)

// smokeConn is one raw connection: messages are read line by line so that
// pollution and missing newlines are seen as they are.
type smokeConn struct {
	w      io.WriteCloser
	lines  chan []byte   // complete lines
	tail   chan []byte   // bytes left without a newline at EOF
	done   chan struct{} // closed at EOF
	stderr *bytes.Buffer
	mu     sync.Mutex
	cmd    *exec.Cmd
	conn   net.Conn
	nextID int
	run    string
	// profile is the profile initialize declared ("" for the default),
	// whose guest dialect the nested-call cell is written in.
	profile string
	// partial holds the bytes read after the last newline (under mu).
	partial []byte
}

func dialSmoke(ctx context.Context, spec string) (*smokeConn, error) {
	ep, err := targets.Open(ctx, spec, framework.OpenOptions{Logs: io.Discard})
	if err != nil {
		return nil, err
	}
	s := &smokeConn{lines: make(chan []byte, 64), tail: make(chan []byte, 1), done: make(chan struct{}), stderr: &bytes.Buffer{}}
	var r io.Reader
	switch {
	case ep.Command != "":
		s.cmd = exec.Command("/bin/sh", "-c", ep.Command)
		s.cmd.Stderr = &lockedWriter{mu: &s.mu, w: s.stderr}
		if s.w, err = s.cmd.StdinPipe(); err != nil {
			return nil, err
		}
		out, err := s.cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := s.cmd.Start(); err != nil {
			return nil, err
		}
		r = out
	case ep.Address != "":
		var d net.Dialer
		if s.conn, err = d.DialContext(ctx, "tcp", ep.Address); err != nil {
			return nil, err
		}
		r, s.w = s.conn, s.conn
	case ep.Serve != nil:
		hr, tw := io.Pipe()
		tr, hw := io.Pipe()
		go func() { _ = ep.Serve(context.Background(), tr, tw); tw.Close() }()
		r, s.w = hr, hw
	default:
		return nil, fmt.Errorf("target %s has no stream smoke can read", spec)
	}
	go s.read(r)
	return s, nil
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (s *smokeConn) read(r io.Reader) {
	buf := make([]byte, 1<<16)
	var pending []byte
	for {
		n, err := r.Read(buf)
		pending = append(pending, buf[:n]...)
		for {
			i := bytes.IndexByte(pending, '\n')
			if i < 0 {
				break
			}
			s.lines <- append([]byte(nil), pending[:i+1]...)
			pending = pending[i+1:]
		}
		s.mu.Lock()
		s.partial = append(s.partial[:0], pending...)
		s.mu.Unlock()
		if err != nil {
			if len(bytes.TrimSpace(pending)) > 0 {
				s.tail <- pending
			}
			close(s.done)
			return
		}
	}
}

// unterminated is what the target wrote after its last newline when that
// is a whole JSON value: a message missing its newline.
func (s *smokeConn) unterminated() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := bytes.TrimSpace(s.partial); len(t) > 0 && json.Valid(t) {
		return append([]byte(nil), t...)
	}
	return nil
}

func (s *smokeConn) stderrTail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := strings.TrimSpace(s.stderr.String())
	if len(t) > 400 {
		t = "…" + t[len(t)-400:]
	}
	if t == "" {
		return "(nothing on stderr)"
	}
	return t
}

// call sends one request and reads until its response, answering the
// target's tool.invoke calls with invoke.
func (s *smokeConn) call(ctx context.Context, method string, params any, out any, invoke func(protocol.InvokeParams) any) error {
	s.nextID++
	id := s.nextID
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := s.w.Write(append(req, '\n')); err != nil {
		return fmt.Errorf("%w: writing %s: %v; target stderr: %s", errCrashed, method, err, s.stderrTail())
	}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	seen := 0 // ticks during which a whole message sat without its newline
	for {
		var line []byte
		select {
		case <-tick.C:
			if m := s.unterminated(); m == nil {
				seen = 0
			} else if seen++; seen >= 3 {
				return fmt.Errorf("%w: %q", errMissingNewline, clip(m))
			}
			continue
		case line = <-s.lines:
		case <-s.done:
			select {
			case t := <-s.tail:
				return fmt.Errorf("%w: %q", errMissingNewline, clip(t))
			case line = <-s.lines:
			default:
				return fmt.Errorf("%w during %s; target stderr: %s", errCrashed, method, s.stderrTail())
			}
		case <-ctx.Done():
			// A message written without its newline stays in the reader.
			return fmt.Errorf("%w: %s got no response line in time (is each message ended by \\n and flushed?); target stderr: %s", errNoAnswer, method, s.stderrTail())
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if env, jerr := protocol.CheckEnvelope(line); jerr != nil {
			if !json.Valid(bytes.TrimSpace(line)) {
				return fmt.Errorf("%w: %q", errStdoutPollution, clip(line))
			}
			return fmt.Errorf("the target sent a malformed JSON-RPC message (%s): %q", jerr.Message, clip(line))
		} else if env.Method == protocol.MethodToolInvoke {
			if err := s.answerInvoke(env.ID, line, invoke); err != nil {
				return err
			}
			continue
		} else if env.Method != "" {
			continue // a notification or request smoke does not serve
		} else if string(bytes.TrimSpace(env.ID)) != fmt.Sprint(id) {
			return fmt.Errorf("%w: %s was sent with id %d, the response has id %s", errIDNotEchoed, method, id, orAbsent(env.ID))
		}
		var resp struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &resp); err != nil {
			return err
		}
		if resp.Error != nil {
			return fmt.Errorf("%s answered JSON-RPC error %d: %s", method, resp.Error.Code, resp.Error.Message)
		}
		if out == nil {
			return nil
		}
		if err := json.Unmarshal(resp.Result, out); err != nil {
			return fmt.Errorf("%s result %s does not have its shape (spec/protocol.md §3): %v", method, clip(resp.Result), err)
		}
		return nil
	}
}

func (s *smokeConn) answerInvoke(id json.RawMessage, line []byte, invoke func(protocol.InvokeParams) any) error {
	var m struct {
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(line, &m)
	p, err := protocol.CheckInvokeParams(m.Params)
	var ans map[string]any
	switch {
	case err != nil:
		ans = map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32602, "message": err.Error()}}
	case invoke == nil:
		return fmt.Errorf("the target sent tool.invoke %s outside a cell that calls a tool", p.CatalogID)
	default:
		ans = map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"result": invoke(p)}}
	}
	b, _ := json.Marshal(ans)
	_, werr := s.w.Write(append(b, '\n'))
	return werr
}

func (s *smokeConn) close() {
	s.w.Close()
	if s.conn != nil {
		s.conn.Close()
	}
	if s.cmd != nil {
		t := time.AfterFunc(2*time.Second, func() { _ = s.cmd.Process.Kill() })
		_ = s.cmd.Wait()
		t.Stop()
	}
}

func clip(b []byte) string {
	t := strings.TrimRight(string(b), "\r\n")
	if len(t) > 200 {
		t = t[:200] + "…"
	}
	return t
}

func orAbsent(id json.RawMessage) string {
	if len(id) == 0 {
		return "(absent)"
	}
	return string(id)
}

type smokeStep struct {
	name  string
	check func(ctx context.Context, s *smokeConn) (note string, err error)
}

// smokeTool is the one harness tool of the smoke run; the nested call
// step calls it by name through the guest dialect (spec/protocol.md §5.4).
var smokeTool = protocol.ToolSpec{Name: "echo", Description: "Returns its input.", Source: protocol.SourcePlugin, Owner: "smoke",
	Parameters: json.RawMessage(`{"type":"object","properties":{"m":{"type":"string"}}}`)}

var smokeSteps = []smokeStep{
	{"initialize", func(ctx context.Context, s *smokeConn) (string, error) {
		var r protocol.InitializeResult
		if err := s.call(ctx, protocol.MethodInitialize, protocol.InitializeParams{ProtocolVersion: protocol.Version,
			Harness: protocol.Peer{Name: framework.HarnessName, Version: harnessVersion()}, Token: framework.TargetToken()}, &r, nil); err != nil {
			return "", err
		}
		if r.ProtocolVersion != protocol.Version {
			return "", fmt.Errorf("initialize answered protocolVersion %q, want %q", r.ProtocolVersion, protocol.Version)
		}
		if err := spec.CheckFeatures(r.Features); err != nil {
			return "", fmt.Errorf("%w: %v", errUnknownFeature, err)
		}
		if err := spec.CheckFeatureSet(r.Profile, r.Features); err != nil {
			return "", fmt.Errorf("declared profile and features: %v", err)
		}
		s.profile = r.Profile
		p := r.Profile
		if p == "" {
			p = spec.DefaultProfile + " (default)"
		}
		return report.Clean(fmt.Sprintf(": %s %s, profile %s, features [%s]", r.Implementation.Name, r.Implementation.Version, p, strings.Join(r.Features, " "))), nil // the target's strings, for a terminal
	}},
	{"run.prepare", func(ctx context.Context, s *smokeConn) (string, error) {
		s.run = "smoke-1"
		var r protocol.PrepareResult
		err := s.call(ctx, protocol.MethodRunPrepare, protocol.PrepareParams{Run: s.run, RunContext: protocol.RunContext{AgentID: "smoke",
			SessionID: "s1", SessionKey: "agent:smoke:s1", SenderID: "u1", Channel: "conformance"}, CodeMode: json.RawMessage(`{"enabled":true}`),
			Tools: []protocol.ToolSpec{smokeTool}}, &r, nil)
		if err != nil {
			return "", err
		}
		if r.Failure != nil {
			return fmt.Sprintf(": failure %s (%s)", r.Failure.Code, r.Failure.Error), nil
		}
		var names []string
		for _, t := range r.Tools {
			names = append(names, t.Name)
		}
		return fmt.Sprintf(": codeModeActive %v, tools [%s]", r.CodeModeActive, strings.Join(names, " ")), nil
	}},
	{"trivial cell", func(ctx context.Context, s *smokeConn) (string, error) {
		res, err := s.cell(ctx, "cell-1", "return 1 + 1", nil)
		if err != nil || res.Status == result.StatusFailed {
			return failedNote(res, err)
		}
		if string(res.Value) != "2" {
			return "", fmt.Errorf("`return 1 + 1` completed with value %s, want 2", res.Value)
		}
		return ": completed, value 2", nil
	}},
	{"nested call", func(ctx context.Context, s *smokeConn) (string, error) {
		called, invoked := "", false
		// The call goes through the guest dialect of the declared profile
		// (000's tools.call under v1, 001's catalog handles under v2): the
		// smoke test checks the tool.invoke round trip, not a guest API.
		code := dialect.Prelude(s.profile) + "\n" + `return await call("echo", {m: "hi"})`
		res, err := s.cell(ctx, "cell-2", code, func(p protocol.InvokeParams) any {
			called, invoked = p.CatalogID, p.Tool == smokeTool.Name
			return json.RawMessage(p.Input)
		})
		if err != nil || res.Status == result.StatusFailed {
			return failedNote(res, err)
		}
		if !invoked {
			return "", fmt.Errorf("the cell completed with %s but no tool.invoke of the %s tool reached the harness", res.Value, smokeTool.Name)
		}
		return fmt.Sprintf(": tool.invoke %s answered, value %s", called, res.Value), nil
	}},
	{"shutdown", func(ctx context.Context, s *smokeConn) (string, error) {
		_ = s.call(ctx, protocol.MethodRunEnd, protocol.RunParams{Run: s.run}, nil, nil)
		c, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		// Closing the stream right after shutdown is allowed (§2: best effort).
		if err := s.call(c, protocol.MethodShutdown, map[string]any{}, nil, nil); err != nil && !errors.Is(err, errCrashed) {
			return "", err
		}
		if s.cmd == nil {
			return "", nil
		}
		s.w.Close()
		select {
		case <-s.done:
			return ": exited at EOF", nil
		case <-time.After(3 * time.Second):
			return "", fmt.Errorf("the target kept running 3 s after shutdown and EOF on stdin (spec/protocol.md §2: an exec: target MUST exit when its stdin reaches EOF)")
		}
	}},
}

// cell runs one exec (and the waits it needs) and returns its last result.
func (s *smokeConn) cell(ctx context.Context, id, code string, invoke func(protocol.InvokeParams) any) (result.Result, error) {
	var res result.Result
	input, _ := json.Marshal(result.ExecInput{Code: &code})
	if err := s.call(ctx, protocol.MethodToolExec, protocol.ToolCallParams{Run: s.run, ToolCallID: id, Input: input}, &res, invoke); err != nil {
		return res, err
	}
	for i := 0; res.Status == result.StatusWaiting && i < 10; i++ {
		in, _ := json.Marshal(result.WaitInput{RunID: res.RunID})
		if err := s.call(ctx, protocol.MethodToolWait, protocol.ToolCallParams{Run: s.run, ToolCallID: fmt.Sprintf("%s-w%d", id, i), Input: in}, &res, invoke); err != nil {
			return res, err
		}
	}
	switch res.Status {
	case result.StatusCompleted, result.StatusFailed:
		return res, nil
	}
	return res, fmt.Errorf("the cell ended with status %q, want completed or failed (spec/protocol.md §4)", res.Status)
}

// failedNote passes a cell that failed with runtime_unavailable (the init
// skeleton has no engine yet) and fails any other failure.
func failedNote(res result.Result, err error) (string, error) {
	if err != nil {
		return "", err
	}
	if res.Code == result.CodeRuntimeUnavailable {
		return ": failed runtime_unavailable (a well-formed answer; no engine behind the adapter yet)", nil
	}
	return "", fmt.Errorf("the cell failed: code %q, error %q", res.Code, res.Error)
}
