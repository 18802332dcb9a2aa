package diff

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/suites/security/corpus"
)

// maxWaits bounds the waits that follow one cell (as the corpus's Drive).
const maxWaits = 50

var runSeq atomic.Int64

// observe runs c in a fresh run on t as the corpus's Drive runs a case
// (run.prepare with the case's fixtures, policy and limits, exec, waits,
// run.end) and records the final result and the nested calls the harness
// answered. It does not judge the outcome: that is the suites' work.
func observe(ctx context.Context, t *framework.Target, c Cell) Observation {
	id := fmt.Sprintf("diff-%d-%d", time.Now().UnixNano()%1e9, runSeq.Add(1))
	set := tools.NewSet(c.Case.Fixtures()...)
	p := corpus.PrepareParams(c.Case, id, set)
	served := t.ServeTools(p, set)
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), framework.Timeouts.Call)
		defer cancel()
		if t.Alive() {
			_ = t.Call(cctx, protocol.MethodRunEnd, protocol.RunParams{Run: id}, nil)
		}
		served.End()
	}()
	noAnswer := func(err error) Observation {
		return Observation{Status: StatusNoAnswer, NoAnswer: err.Error(), Calls: observed(result.Result{}, set.Calls()).Calls}
	}
	var pr protocol.PrepareResult
	cctx, cancel := context.WithTimeout(ctx, framework.Timeouts.Call)
	err := t.Call(cctx, protocol.MethodRunPrepare, p, &pr)
	cancel()
	if err != nil {
		return noAnswer(fmt.Errorf("run.prepare: %w", err))
	}
	timeout := 60 * time.Second
	if pr.EffectiveConfig != nil && pr.EffectiveConfig.TimeoutMs > 0 {
		timeout = time.Duration(min(pr.EffectiveConfig.TimeoutMs, 60000)) * time.Millisecond
	}
	call := func(n int, method, cell string, input any) (result.Result, error) {
		in, _ := json.Marshal(input)
		tp := protocol.ToolCallParams{Run: id, ToolCallID: fmt.Sprintf("%s-call-%d", id, n), Input: in}
		cctx, cancel := context.WithTimeout(ctx, timeout+framework.Timeouts.ToolCallSlack)
		defer cancel()
		served.Begin(tp.ToolCallID, cell)
		var res result.Result
		if err := t.Call(cctx, method, tp, &res); err != nil {
			served.Finish(tp.ToolCallID, cell, nil)
			return res, fmt.Errorf("%s: %w", method, err)
		}
		served.Finish(tp.ToolCallID, cell, &res)
		return res, nil
	}
	res, err := call(1, protocol.MethodToolExec, "", map[string]string{"code": framework.Guest(c.Case.Code)})
	for i := 0; err == nil && res.Status == result.StatusWaiting && i < maxWaits; i++ {
		res, err = call(i+2, protocol.MethodToolWait, res.RunID, map[string]string{"runId": res.RunID})
	}
	if err != nil {
		return noAnswer(err)
	}
	if res.Status == result.StatusWaiting {
		res.RunID = "" // a run id is the implementation's: never compared
	}
	o := observed(res, set.Calls())
	if len(c.Case.Requirements) > 0 {
		o.Expect = "met"
		if why := c.Case.ExpectFor(framework.Profile()).Check(res); why != "" {
			o.Expect = why
		}
	}
	return o
}
