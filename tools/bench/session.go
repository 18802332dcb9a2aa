package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/codemode-conformance/codemode/suites/framework"
)

// maxWaits bounds the wait calls of one execution. OpenClaw 2026.7.35
// returns waiting on every tools.call, so parallel-100-calls needs 7 and
// seq-10-calls 10.
const maxWaits = 200

// ErrIncorrect marks a result that is not what the cell must return (wrong
// status, value or number of nested calls). Failures wrap it or a protocol
// error.
var ErrIncorrect = errors.New("incorrect result")

// session is one connected target and the runs it holds.
type session struct {
	spec string
	t    *framework.Target
	seq  atomic.Int64

	mu sync.Mutex
	// lost is set when the connection died: every later cell fails with it.
	lost error
}

// benchRun is one prepared run with its fake tools and their catalog ids.
type benchRun struct {
	id      string
	set     *tools.Set
	served  *framework.ServedRun
	timeout time.Duration
	ids     map[string]string
}

func connect(ctx context.Context, spec string) (*session, error) {
	t, err := framework.Connect(ctx, spec)
	if err != nil {
		return nil, err
	}
	return &session{spec: spec, t: t}, nil
}

func (s *session) close() { s.t.Close() }

// prepare prepares a code mode run with the fake echo and slow tools and
// resolves their catalog ids with an untimed setup cell.
func (s *session) prepare(ctx context.Context, codeMode json.RawMessage) (*benchRun, error) {
	n := s.seq.Add(1)
	id := fmt.Sprintf("bench-%d", n)
	set := tools.NewSet(tools.Echo(), tools.Slow())
	p := protocol.PrepareParams{Run: id, CodeMode: codeMode, Tools: set.Specs(), RunContext: protocol.RunContext{
		AgentID: "bench-agent", SessionID: "bench-session-" + id, SessionKey: "agent:bench-agent:bench-session-" + id,
		SenderID: "bench-sender", Channel: "bench"}}
	r := &benchRun{id: id, set: set, served: s.t.ServeTools(p, set), timeout: 60 * time.Second}
	cctx, cancel := context.WithTimeout(ctx, framework.Timeouts.Call)
	defer cancel()
	var pr protocol.PrepareResult
	if err := s.call(cctx, protocol.MethodRunPrepare, p, &pr); err != nil {
		r.served.End()
		return nil, fmt.Errorf("run.prepare: %w", err)
	}
	if !pr.CodeModeActive {
		s.end(r)
		b, _ := json.Marshal(pr)
		return nil, fmt.Errorf("%w: run.prepare with %s did not activate code mode: %s", ErrIncorrect, codeMode, b)
	}
	if pr.EffectiveConfig != nil && pr.EffectiveConfig.TimeoutMs > 0 {
		r.timeout = time.Duration(min(pr.EffectiveConfig.TimeoutMs, 60000)) * time.Millisecond // the clamp's maximum (CM-CFG-05): a target cannot make the bench wait longer
	}
	res, _, err := s.execute(ctx, r, catalogJS)
	if err == nil && res.Status != result.StatusCompleted {
		err = failure(res)
	}
	if err == nil {
		err = json.Unmarshal(res.Value, &r.ids)
	}
	if err == nil && (r.ids["echo"] == "" || r.ids["slow"] == "") {
		err = fmt.Errorf("%w: the catalog lacks echo or slow: %s", ErrIncorrect, res.Value)
	}
	if err != nil {
		s.end(r)
		return nil, fmt.Errorf("resolving catalog ids: %w", err)
	}
	return r, nil
}

// end ends the run (best effort) and stops answering its tools.
func (s *session) end(r *benchRun) {
	if s.lostErr() == nil && s.t.Alive() {
		cctx, cancel := context.WithTimeout(context.Background(), framework.Timeouts.Call)
		_ = s.call(cctx, protocol.MethodRunEnd, protocol.RunParams{Run: r.id}, nil)
		cancel()
	}
	r.served.End()
}

func (s *session) call(ctx context.Context, method string, params, out any) error {
	if err := s.lostErr(); err != nil {
		return err
	}
	err := s.t.Call(ctx, method, params, out)
	if err != nil && !s.t.Alive() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.lost == nil {
			s.lost = fmt.Errorf("target connection lost: %w", err)
		}
		return s.lost
	}
	return err
}

func (s *session) lostErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lost
}

// execute sends exec with code and follows waiting results with wait until
// the cell is no longer waiting. It returns the final result and the number
// of waits; err is a protocol fault or a cell that never stopped waiting.
func (s *session) execute(ctx context.Context, r *benchRun, code string) (result.Result, int, error) {
	in, _ := json.Marshal(map[string]string{"code": code})
	res, err := s.toolCall(ctx, r, protocol.MethodToolExec, "", in)
	waits := 0
	for err == nil && res.Status == result.StatusWaiting {
		if waits == maxWaits {
			return res, waits, fmt.Errorf("%w: still waiting after %d waits", ErrIncorrect, waits)
		}
		in, _ = json.Marshal(map[string]string{"runId": res.RunID})
		res, err = s.toolCall(ctx, r, protocol.MethodToolWait, res.RunID, in)
		waits++
	}
	return res, waits, err
}

// toolCall sends exec (cell "") or a wait on cell and decodes its result.
func (s *session) toolCall(ctx context.Context, r *benchRun, method, cell string, input json.RawMessage) (result.Result, error) {
	cctx, cancel := context.WithTimeout(ctx, r.timeout+framework.Timeouts.ToolCallSlack)
	defer cancel()
	p := protocol.ToolCallParams{Run: r.id, ToolCallID: fmt.Sprintf("%s-call-%d", r.id, s.seq.Add(1)), Input: input}
	var raw json.RawMessage
	r.served.Begin(p.ToolCallID, cell)
	if err := s.call(cctx, method, p, &raw); err != nil {
		r.served.Finish(p.ToolCallID, cell, nil)
		return result.Result{}, fmt.Errorf("%s: %w", method, err)
	}
	var res result.Result
	err := json.Unmarshal(raw, &res)
	if err != nil {
		r.served.Finish(p.ToolCallID, cell, nil)
	} else {
		r.served.Finish(p.ToolCallID, cell, &res)
	}
	if err != nil {
		return res, fmt.Errorf("%w: %s returned a result that is not a result object: %s", ErrIncorrect, method, cut(string(raw)))
	}
	return res, nil
}

// sample is one checked execution.
type sample struct {
	elapsed time.Duration
	waits   int
}

// runCell executes cell once on r, timed, and checks the result.
func (s *session) runCell(ctx context.Context, c Cell, r *benchRun) (sample, error) {
	before := len(r.set.Calls())
	start := time.Now()
	res, waits, err := s.execute(ctx, r, c.Code(r.ids))
	elapsed := time.Since(start)
	if err != nil {
		return sample{}, err
	}
	if err := check(c, res); err != nil {
		return sample{}, err
	}
	if got := len(r.set.Calls()) - before; got != c.Calls {
		return sample{}, fmt.Errorf("%w: %d nested tool calls reached the harness, want %d", ErrIncorrect, got, c.Calls)
	}
	return sample{elapsed: elapsed, waits: waits}, nil
}

// check is the correctness check of one final result.
func check(c Cell, res result.Result) error {
	if res.Status != result.StatusCompleted {
		return failure(res)
	}
	if !sameJSON(res.Value, []byte(c.Want)) {
		return &CellFailure{Code: "wrong value", Detail: fmt.Sprintf("got %s, want %s", cut(string(res.Value)), c.Want)}
	}
	return nil
}

// failure describes a final result that did not complete.
func failure(res result.Result) *CellFailure {
	switch {
	case res.Status == result.StatusFailed && res.Code != "":
		return &CellFailure{Code: string(res.Code), Detail: res.Error}
	case res.Status == result.StatusFailed:
		return &CellFailure{Code: "failed", Detail: res.Error}
	}
	return &CellFailure{Code: "status", Detail: describe(res)}
}

// CellFailure is a result that is not the cell's correct, completed value:
// Code is the result's error code ("memory_limit_exceeded", …), "failed"
// for a plain guest error, "wrong value" or "status".
type CellFailure struct {
	Code   string
	Detail string
}

func (f *CellFailure) Error() string { return f.Code + ": " + f.Detail }

// Is makes every CellFailure match ErrIncorrect.
func (f *CellFailure) Is(target error) bool { return target == ErrIncorrect }

func describe(res result.Result) string {
	b, _ := json.Marshal(res)
	return cut(string(b))
}

func cut(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
