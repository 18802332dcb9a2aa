package corpus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/codemode-conformance/codemode/suites/framework"
)

// TrivialCell is the cell every case is followed by: the target must still
// serve it with TrivialValue (CM-SEC-04, CM-LIM-04).
const (
	TrivialCell  = "return 40 + 2;"
	TrivialValue = "42"
)

// QuietFor is how long a case naming CM-NEST-23 watches, after its cell
// ended, for a nested call that arrives late (the e2e spec of CM-NEST-23
// watches for a second; a late dispatch comes within milliseconds).
const QuietFor = 500 * time.Millisecond

// WatchesLateCalls reports whether c names CM-NEST-23, whose cases are
// followed by a QuietFor watch for nested calls after the cell's answer.
func (c Case) WatchesLateCalls() bool { return contains(c.Requirements, "CM-NEST-23") }

// MadeLate are the calls whose input has a member "late": by the corpus's
// convention, a CM-NEST-23 case marks so each call its guest makes after the
// cell's value was determined. Such a call must never reach the harness,
// not even before the answer (a target that waits for it before answering
// fails too).
func MadeLate(calls []protocol.InvokeParams) []protocol.InvokeParams {
	var out []protocol.InvokeParams
	for _, c := range calls {
		var in map[string]json.RawMessage
		if json.Unmarshal(c.Input, &in) == nil {
			if _, ok := in["late"]; ok {
				out = append(out, c)
			}
		}
	}
	return out
}

// BaselineWithin is how long the live VMs and stored snapshots of
// runtime.stats may take to return to their level before a case.
const BaselineWithin = 10 * time.Second

// Report is what Drive saw of one case.
type Report struct {
	Case Case
	// Final is the last result; Raw its exact bytes; Steps the raw bytes
	// of every exec/wait result in order.
	Final result.Result
	Raw   json.RawMessage
	Steps []json.RawMessage
	// Mismatch is Expect.CheckRaw's reason, "" when the outcome is met.
	Mismatch string
	// After is why the target was not back to normal after the case
	// (trivial cell, runtime.stats), "" when it was.
	After string
}

// Pass reports whether the case met its outcome and the target recovered.
func (r Report) Pass() bool { return r.Mismatch == "" && r.After == "" }

var driveSeq atomic.Int64

// ErrLateCall marks a nested call that reached the harness after the
// answer that ended its cell (CM-NEST-23).
var ErrLateCall = errors.New("a nested call reached the harness after the answer that ended its cell (CM-NEST-23)")

// ErrCallAfterValue marks a call the guest made after the cell's value was
// determined (marked late, see MadeLate) that reached the harness at all.
var ErrCallAfterValue = errors.New("a nested call made after the cell's value was determined reached the harness (CM-NEST-23)")

// Drive runs c on t outside Ginkgo: it prepares a run with the case's
// fixtures and limits, execs the code, follows waiting results with wait,
// checks the outcome, ends the run, then runs TrivialCell in a fresh run
// and, when the target answers runtime.stats, waits until its live VMs and
// snapshots are back to their level before the case; a tool.invoke the
// harness refused meanwhile fails the case too. err is a protocol
// fault (the target did not answer a call), or a *framework.OutsideUnion
// when an exec/wait answer is outside the result union (the case is then
// blocked by framework.UnionOwner, not failed); a wrong outcome is in
// Report.
func Drive(ctx context.Context, t *framework.Target, c Case) (rep Report, err error) {
	rep = Report{Case: c}
	refusedBefore := len(t.Refused())
	defer func() {
		// A tool.invoke the harness refused (a forged call, or one that
		// came after its cell ended: CM-GUEST-05, CM-NEST-23) fails the
		// case as it fails a spec.
		if refused := t.Refused(); len(refused) > refusedBefore && rep.After == "" {
			var lines []string
			for _, x := range refused[refusedBefore:] {
				lines = append(lines, x.String())
			}
			rep.After = "the target sent tool.invoke requests the harness refused:\n" + strings.Join(lines, "\n")
		}
	}()
	base, statsErr := t.Stats(ctx)
	res, steps, loop, err := runCell(ctx, t, c, c.Code)
	if errors.Is(err, ErrLateCall) || errors.Is(err, ErrCallAfterValue) {
		rep.Final, rep.Steps, rep.Raw = res, steps, steps[len(steps)-1]
		rep.Mismatch = err.Error()
		return rep, nil
	}
	if err != nil {
		rep.Steps = steps
		return rep, err
	}
	rep.Final, rep.Steps = res, steps
	rep.Raw = steps[len(steps)-1]
	rep.Mismatch = c.ExpectFor(framework.Profile()).CheckRaw(rep.Raw)
	if rep.Mismatch != "" && loop != "" {
		rep.Mismatch += " (" + loop + ")"
	}

	trivial := Case{File: c.File + " (trivial cell after)", Tools: []string{"echo"}}
	tres, _, _, err := runCell(ctx, t, trivial, TrivialCell)
	if err != nil {
		rep.After = fmt.Sprintf("the target did not answer the trivial cell after the case: %v", err)
		return rep, nil
	}
	if tres.Status != result.StatusCompleted || string(tres.Value) != TrivialValue {
		b, _ := json.Marshal(tres)
		rep.After = fmt.Sprintf("the trivial cell %q after the case did not complete with %s: %s", TrivialCell, TrivialValue, b)
		return rep, nil
	}
	if statsErr != nil {
		return rep, nil // a target without runtime.stats: nothing more to compare
	}
	deadline := time.Now().Add(BaselineWithin)
	for {
		now, err := t.Stats(ctx)
		if err != nil {
			rep.After = fmt.Sprintf("runtime.stats failed after the case: %v", err)
			return rep, nil
		}
		why := AboveBaseline(base, now)
		if why == "" {
			return rep, nil
		}
		if time.Now().After(deadline) {
			rep.After = fmt.Sprintf("%s %s after the case", why, BaselineWithin)
			return rep, nil
		}
		select {
		case <-ctx.Done():
			return rep, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// AboveBaseline says which of now's live VMs, stored snapshots and
// suspended runs are above base, or "".
func AboveBaseline(base, now protocol.Stats) string {
	if now.LiveVMs <= base.LiveVMs && now.Snapshots <= base.Snapshots && now.SuspendedRuns <= base.SuspendedRuns {
		return ""
	}
	return fmt.Sprintf("runtime.stats is above its level before the case (liveVMs %d, snapshots %d, suspendedRuns %d; before: %d, %d, %d)",
		now.LiveVMs, now.Snapshots, now.SuspendedRuns, base.LiveVMs, base.Snapshots, base.SuspendedRuns)
}

// PrepareParams is run.prepare's params for case c in run id, with set's
// tools: the case's codeMode, policy and a run context named after id.
func PrepareParams(c Case, id string, set *tools.Set) protocol.PrepareParams {
	cm, _ := json.Marshal(c.CodeMode())
	return protocol.PrepareParams{Run: id, CodeMode: cm, Tools: set.Specs(), Policy: c.Policy(), RunContext: protocol.RunContext{
		AgentID: "agent-" + id, SessionID: "session-" + id, SessionKey: "agent:agent-" + id + ":session-" + id, SenderID: "sender-" + id, Channel: "conformance"}}
}

// runCell prepares a run for c, runs code to a final result and ends the
// run. loop is the wait loop's framework.WaitLoop.Note when the cell was
// still waiting at its end, else "".
func runCell(ctx context.Context, t *framework.Target, c Case, code string) (result.Result, []json.RawMessage, string, error) {
	id := fmt.Sprintf("case-%d-%d", time.Now().UnixNano()%1e9, driveSeq.Add(1))
	set := tools.NewSet(c.Fixtures()...)
	p := PrepareParams(c, id, set)
	served := t.ServeTools(p, set)
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), framework.Timeouts.Call)
		defer cancel()
		if t.Alive() {
			_ = t.Call(cctx, protocol.MethodRunEnd, protocol.RunParams{Run: id}, nil)
		}
		served.End()
	}()
	var pr protocol.PrepareResult
	cctx, cancel := context.WithTimeout(ctx, framework.Timeouts.Call)
	err := t.Call(cctx, protocol.MethodRunPrepare, p, &pr)
	cancel()
	if err != nil {
		return result.Result{}, nil, "", fmt.Errorf("run.prepare: %w", err)
	}
	timeout := 60 * time.Second
	if pr.EffectiveConfig != nil && pr.EffectiveConfig.TimeoutMs > 0 {
		timeout = time.Duration(min(pr.EffectiveConfig.TimeoutMs, 60000)) * time.Millisecond
	}
	var steps []json.RawMessage
	call := func(n int, method, cell string, input any) (result.Result, error) {
		in, _ := json.Marshal(input)
		tp := protocol.ToolCallParams{Run: id, ToolCallID: fmt.Sprintf("%s-call-%d", id, n), Input: in}
		cctx, cancel := context.WithTimeout(ctx, timeout+framework.Timeouts.ToolCallSlack)
		defer cancel()
		served.Begin(tp.ToolCallID, cell)
		var raw json.RawMessage
		if err := t.Call(cctx, method, tp, &raw); err != nil {
			served.Finish(tp.ToolCallID, cell, nil)
			return result.Result{}, fmt.Errorf("%s: %w", method, err)
		}
		// The framework's one decoder: a result outside the union is
		// CM-EXEC-05's fault (framework.OutsideUnion), not the case's.
		res, err := framework.DecodeResult(method, raw)
		if err != nil {
			served.Finish(tp.ToolCallID, cell, nil)
			steps = append(steps, raw)
			return res, err
		}
		served.Finish(tp.ToolCallID, cell, &res)
		steps = append(steps, raw)
		return res, nil
	}
	res, err := call(1, protocol.MethodToolExec, "", map[string]string{"code": framework.Rendered(framework.Guest(code))})
	// Followed as a spec's Follow follows it (framework.WaitLoop): for
	// framework.Timeouts.FollowBudgets × timeoutMs, however many waits a
	// target that suspends at every nested call needs, and only while
	// another wait fits before the spec's deadline: a cell still waiting
	// then is a mismatch of the case (the target's behaviour), not a spec
	// timeout charged as an error.
	loop := framework.NewWaitLoop(timeout)
	for n := 2; err == nil && res.Status == result.StatusWaiting && loop.More(); n++ {
		framework.AwaitPending(set, res, timeout/4) // as Follow pauses
		res, err = call(n, protocol.MethodToolWait, res.RunID, map[string]string{"runId": res.RunID})
	}
	if err == nil && res.Status == result.StatusWaiting {
		return res, steps, loop.Note(), nil
	}
	if err == nil && res.Status != result.StatusWaiting && c.WatchesLateCalls() {
		if late := MadeLate(set.Calls()); len(late) > 0 {
			b, _ := json.Marshal(late)
			return res, steps, "", fmt.Errorf("%w: %s", ErrCallAfterValue, b)
		}
		n := len(set.Calls())
		for end := time.Now().Add(QuietFor); time.Now().Before(end); {
			if calls := set.Calls(); len(calls) > n {
				b, _ := json.Marshal(calls[n:])
				return res, steps, "", fmt.Errorf("%w: %s", ErrLateCall, b)
			}
			select {
			case <-ctx.Done():
				return res, steps, "", ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	return res, steps, "", err
}
