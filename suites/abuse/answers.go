package abuse

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/suites/framework/dialect"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// malformedAnswers are answers to the target's tool.invoke that it cannot
// read as a result. answer is the line sent for the invoke's id (raw JSON).
var malformedAnswers = []struct {
	name   string
	answer func(id string) string
}{
	{"not JSON (a bare Infinity)", func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":Infinity}`
	}},
	{"nested 10,001 levels deep (past encoding/json's limit)", func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"result":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}}`
	}},
	{"a result and an error together", func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"result":"both"},"error":{"code":-32010,"message":"both"}}`
	}},
	{"over the maximum message size", func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"result":"` + strings.Repeat("a", maxMessageBytes+over) + `"}}`
	}},
}

var _ = Describe("abuse", "malformed answers to tool.invoke", func() {
	It("CM-PROT-05", "a malformed answer to tool.invoke settles the nested call at once as a tool error the guest catches, naming why, and is never answered", func(ctx SpecContext) {
		c := OpenRaw(ctx)
		c.AnswerInvokes()
		for _, a := range malformedAnswers {
			run := prepare(ctx, c, map[string]any{"timeoutMs": settleTimeout.Milliseconds()})
			inv, exec := startCall(ctx, c, run)
			mark := len(c.Received())
			go func() { _ = c.Write([]byte(a.answer(string(inv.ID)) + "\n")) }() // a target that stops reading must not block the spec
			res := settle(ctx, c, run, exec, a.name)
			Expect(res.Status).NotTo(Equal(result.StatusWaiting), "%s: the unreadable answer must settle the nested call at once, within the running exec or wait; the cell was %s (its call pending, timeoutMs %d): %+v", a.name, res.Loop, settleTimeout.Milliseconds(), res.Result)
			Expect(res.Status).To(Equal(result.StatusCompleted), "%s: the guest's catch must end the cell (completed) once the exec and its waits settle: %+v", a.name, res)
			var v string
			Expect(json.Unmarshal(res.Value, &v)).To(Succeed(), "%s: the cell returns a string: %s", a.name, res.Value)
			Expect(v).To(HavePrefix("caught: "), "%s: the nested call must reject with a tool error the guest catches, not resolve", a.name)
			Expect(len(strings.TrimPrefix(v, "caught: "))).To(BeNumerically(">", 0), "%s: the tool error must say why the answer could not be read", a.name)
			notAnswered(c, mark, inv.ID, a.name)
			endRun(ctx, c, run)
		}
		expectServing(ctx, c, "malformed answers to tool.invoke")
	})

	It("CM-PROT-05", "an answer with an id the target never sent is dropped unanswered, and the right answer still settles the call", func(ctx SpecContext) {
		c := OpenRaw(ctx)
		c.AnswerInvokes()
		run := prepare(ctx, c, map[string]any{"timeoutMs": settleTimeout.Milliseconds()})
		inv, exec := startCall(ctx, c, run)
		mark := len(c.Received())
		stray := `"stray-` + strings.Trim(string(inv.ID), `"`) + `"`
		Expect(c.Write([]byte(`{"jsonrpc":"2.0","id":`+stray+`,"result":{"result":"stray"}}`+"\n"))).To(Succeed(), "sending the stray answer")
		Expect(c.Write([]byte(`{"jsonrpc":"2.0","id":`+string(inv.ID)+`,"result":{"result":"right"}}`+"\n"))).To(Succeed(), "sending the right answer")
		res := settle(ctx, c, run, exec, "a stray answer then the right one")
		Expect(res.Status).To(Equal(result.StatusCompleted), "the right answer must settle the call: %+v", res)
		Expect(string(res.Value)).To(Equal(`"answered: \"right\""`), "the call must resolve with the right answer's result, not the stray one's")
		notAnswered(c, mark, json.RawMessage(stray), "the stray answer")
		endRun(ctx, c, run)
	})
})

// startCall sends an exec whose cell makes one nested call and catches its
// rejection, and returns the target's tool.invoke for it and the exec's id.
func startCall(ctx context.Context, c *RawConn, run string) (RawMessage, string) {
	ginkgo.GinkgoHelper()
	exec := fmt.Sprintf("%s-exec", run) // a string: never one of the target's own ids
	// The nested call goes through the guest dialect (the answer, not the
	// guest API, is the subject); the tool is found outside the try, so a
	// surface the target lacks fails the cell with the dialect's Error.
	code := Guest(`const name = listTools()[0].name; try { const r = await call(name, {message: "x"}); return "answered: " + JSON.stringify(r); } catch (e) { return "caught: " + String(e && e.message); }`)
	Expect(c.Send(exec, protocol.MethodToolExec, execParams(run, code))).To(Succeed(), "sending the exec")
	cctx, cancel := context.WithTimeout(ctx, Timeouts.Call)
	defer cancel()
	inv, err := c.WaitFor(cctx, func(m RawMessage) bool {
		return m.Method == protocol.MethodToolInvoke && len(m.ID) > 0 && strings.Contains(string(m.Params), run)
	})
	if err != nil {
		// A cell that failed on the dialect makes no call: blocked, not failed.
		rctx, rcancel := context.WithTimeout(ctx, 5*time.Second)
		defer rcancel()
		if m, rerr := c.Response(rctx, exec); rerr == nil {
			if res, ok := decodeResult(m); ok {
				if req, what, ok := dialect.BlockedBy(res.Error); ok {
					Blocked(req, "the guest dialect of profile %s needs what the target lacks: %s", Profile(), what)
				}
			}
		}
	}
	Expect(err).NotTo(HaveOccurred(), "the cell's nested call must reach the harness as tool.invoke")
	return inv, exec
}

// settleTimeout is the timeoutMs of the runs whose calls settle follows.
const settleTimeout = 10 * time.Second

// settle reads the exec's result and, while it is waiting, waits (within
// 30 s, however many waits that takes, at most Timeouts.MaxWaits): the
// settled call must end the cell. A result still waiting at the end has
// Loop set: the waits, the time they took and why they stopped.
func settle(ctx context.Context, c *RawConn, run, exec, what string) settled {
	ginkgo.GinkgoHelper()
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	m, err := c.Response(cctx, exec)
	Expect(err).NotTo(HaveOccurred(), "%s: the exec must be answered", what)
	res, ok := decodeResult(m)
	Expect(ok).To(BeTrue(), "%s: the exec must get a result object: %s", what, m)
	// A target may suspend at any point while the nested call is pending
	// (protocol.md §10), and answer a wait at once while it still is, so
	// the cell is followed through wait, as a model would, for as long as
	// the 30 s above allow, not for a number of waits. A wait is sent only
	// while one more fits in the 30 s (the run's timeoutMs, settleTimeout,
	// and a margin): a target that leaves the call pending answers each
	// wait only at timeoutMs, and gets the verdict on its still-waiting
	// result, not a deadline on the wait.
	deadline, _ := cctx.Deadline()
	start, waits := time.Now(), 0
	for ; res.Status == result.StatusWaiting && waits < Timeouts.MaxWaits && time.Until(deadline) > settleTimeout+5*time.Second; waits++ {
		in, _ := json.Marshal(map[string]string{"runId": res.RunID})
		wait := fmt.Sprintf("%s-wait-%d", run, waits)
		Expect(c.Send(wait, protocol.MethodToolWait, protocol.ToolCallParams{Run: run, ToolCallID: wait, Input: in})).To(Succeed(), "%s: sending the wait", what)
		m, err = c.Response(cctx, wait)
		Expect(err).NotTo(HaveOccurred(), "%s: the wait must be answered", what)
		res, ok = decodeResult(m)
		Expect(ok).To(BeTrue(), "%s: the wait must get a result object: %s", what, m)
	}
	out := settled{Result: res}
	if res.Status == result.StatusWaiting {
		why := "the 30 s the spec gives the call to settle"
		if waits >= Timeouts.MaxWaits {
			why = fmt.Sprintf("the harness's safety bound of %d waits", Timeouts.MaxWaits)
		}
		out.Loop = fmt.Sprintf("still waiting after the exec and %d waits in %s, each answered in time; the harness stopped at %s", waits, time.Since(start).Round(time.Millisecond), why)
	}
	return out
}

// settled is settle's final result; Loop, on one still waiting, says how
// many waits it answered, in how long, and why the harness stopped.
type settled struct {
	result.Result
	Loop string
}

// notAnswered fails when the target sent a response to a response: one
// carrying id (the answer's) or a null id, after the first mark lines
// received (the spec's own requests there have string ids of their own).
func notAnswered(c *RawConn, mark int, id json.RawMessage, what string) {
	ginkgo.GinkgoHelper()
	for _, m := range c.Received()[mark:] {
		if m.IsResponse() && (string(m.ID) == string(id) || string(m.ID) == "null") {
			ginkgo.Fail(fmt.Sprintf("%s: the target answered a response (spec/protocol.md §1: a response is never answered): %s", what, m))
		}
	}
}

// endRun ends run on c.
func endRun(ctx context.Context, c *RawConn, run string) {
	ginkgo.GinkgoHelper()
	cctx, cancel := context.WithTimeout(ctx, Timeouts.Call)
	defer cancel()
	m, err := c.Call(cctx, protocol.MethodRunEnd, protocol.RunParams{Run: run})
	Expect(err).NotTo(HaveOccurred(), "run.end must be answered")
	Expect(m.Error).To(BeNil(), "run.end must succeed: %s", m)
}
