package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/onsi/gomega"
)

// blocking is a tool that runs until its context is canceled.
func blocking() tools.Tool {
	return tools.Core("block", "Block until canceled.", nil, func(ctx context.Context, _ json.RawMessage) (any, error) {
		<-ctx.Done()
		return nil, protocol.ToolError("canceled", nil)
	})
}

// routerWith is a router with one run of set, prepared with policy and an
// exec call "exec-1" outstanding.
func routerWith(set *tools.Set, policy *protocol.Policy) *router {
	r := newRouter()
	r.add("run", protocol.PrepareParams{Run: "run", Tools: set.Specs(), Policy: policy}, set)
	r.begin("run", "exec-1", "")
	return r
}

// age makes the answers of calls older than lateGrace.
func age(r *router, calls ...string) {
	for _, c := range calls {
		r.runs["run"].answered[c] = time.Now().Add(-2 * lateGrace)
	}
}

func invokeOf(tool, call, parent string) protocol.InvokeParams {
	return protocol.InvokeParams{Run: "run", ToolCallID: call, ParentToolCallID: parent, Tool: tool,
		Source: protocol.SourceOpenClaw, Owner: "core", Input: json.RawMessage(`{"a":1}`)}
}

// A target that reuses a toolCallId for two running invocations still gets
// both canceled by one tool.cancel.
func TestRouterCancelsEveryInvocationOfAReusedID(t *testing.T) {
	set := tools.NewSet(blocking())
	r := routerWith(set, nil)
	p := invokeOf("block", "dup", "exec-1")
	done := make(chan struct{}, 2)
	for range 2 {
		go func() { _, _ = r.invoke(context.Background(), p); done <- struct{}{} }()
	}
	gomega.NewWithT(t).Eventually(set.Active).Should(gomega.Equal(2), "both invocations must start")
	r.cancel(protocol.CancelParams{Run: "run", ToolCallID: "dup"})
	<-done
	<-done
	if got := set.Canceled(); got != 2 {
		t.Fatalf("canceled %d invocations, want 2", got)
	}
}

// A cancel that arrives before its invocation cancels that invocation only,
// not a later one that reuses the id.
func TestRouterEarlyCancelAppliesOnce(t *testing.T) {
	set := tools.NewSet(blocking(), tools.Echo())
	r := routerWith(set, nil)
	r.cancel(protocol.CancelParams{Run: "run", ToolCallID: "early"})
	if _, err := r.invoke(context.Background(), invokeOf("block", "early", "exec-1")); err == nil {
		t.Fatal("the early-canceled invocation was not canceled")
	}
	out, err := r.invoke(context.Background(), invokeOf("echo", "early", "exec-1"))
	if err != nil || string(out) != `{"a":1}` {
		t.Fatalf("a later invocation reusing the id = %s, %v; want it to run", out, err)
	}
	if got := set.Canceled(); got != 1 {
		t.Fatalf("canceled %d invocations, want 1", got)
	}
}

// Forged nested calls are refused with a tool error, recorded with the
// requirements they violate, and never reach the tool.
func TestRouterRefusesForgedInvokes(t *testing.T) {
	g := gomega.NewWithT(t)
	for _, c := range []struct {
		name   string
		setup  func(r *router)
		p      protocol.InvokeParams
		reason string
		reqs   []string
	}{
		{name: "unknown run", p: func() protocol.InvokeParams { p := invokeOf("echo", "c1", "exec-1"); p.Run = "other"; return p }(),
			reason: `no run "other" was prepared on this connection`, reqs: []string{"CM-ACT-05", "CM-SEC-05"}},
		{name: "ended run", setup: func(r *router) { r.end("run") }, p: invokeOf("echo", "c1", "exec-1"),
			reason: `run "run" has ended`, reqs: []string{"CM-ACT-05", "CM-SEC-05"}},
		{name: "no outstanding parent", p: invokeOf("echo", "c1", "exec-9"),
			reason: `parentToolCallId "exec-9" is neither an outstanding tool.exec/tool.wait`, reqs: []string{"CM-GUEST-05", "CM-SEC-05"}},
		{name: "parent answered, cell completed", setup: func(r *router) {
			r.finish("run", "exec-1", "", &result.Result{Status: result.StatusCompleted})
			age(r, "exec-1")
		}, p: invokeOf("echo", "c1", "exec-1"), reason: `parentToolCallId "exec-1"`, reqs: []string{"CM-GUEST-05", "CM-SEC-05"}},
		{name: "denied tool", setup: func(r *router) {
			r.runs["run"].prep.Policy = &protocol.Policy{Deny: []string{"openclaw:core"}}
		}, p: invokeOf("echo", "c1", "exec-1"), reason: `the run's policy denies it (deny entry "openclaw:core")`, reqs: []string{"CM-GUEST-05", "CM-ACT-04"}},
		{name: "undeclared tool", p: invokeOf("secret", "c1", "exec-1"),
			reason: "no tool openclaw:core:secret was declared", reqs: []string{"CM-ACT-05"}},
		{name: "forged and denied", setup: func(r *router) { r.runs["run"].prep.DisableTools = true }, p: invokeOf("echo", "c1", "exec-9"),
			reason: "; the run has disableTools: true", reqs: []string{"CM-GUEST-05", "CM-SEC-05", "CM-ACT-03"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			set := tools.NewSet(tools.Echo())
			r := routerWith(set, nil)
			var hooked []RefusedInvoke
			r.onRefuse = func(x RefusedInvoke) { hooked = append(hooked, x) }
			if c.setup != nil {
				c.setup(r)
			}
			_, err := r.invoke(context.Background(), c.p)
			g.Expect(err).To(gomega.MatchError(gomega.ContainSubstring("harness: refused tool.invoke: ")), "%s: the target gets a tool error", c.name)
			g.Expect(set.Calls()).To(gomega.BeEmpty(), "%s: a refused invoke never reaches the tool", c.name)
			g.Expect(r.Refused()).To(gomega.HaveLen(1), "%s: the refusal is recorded", c.name)
			g.Expect(hooked).To(gomega.Equal(r.Refused()), "%s: onRefuse sees the refusal", c.name)
			x := r.Refused()[0]
			g.Expect(x.Reason).To(gomega.ContainSubstring(c.reason), "%s: reason", c.name)
			g.Expect(x.Requirements).To(gomega.Equal(c.reqs), "%s: requirements", c.name)
			g.Expect([]string{x.Run, x.Tool, x.ToolCallID, x.Parent}).To(gomega.Equal([]string{c.p.Run, c.p.Tool, c.p.ToolCallID, c.p.ParentToolCallID}), "%s: identity", c.name)
			g.Expect(x.String()).To(gomega.ContainSubstring(`"parentToolCallId":"`+c.p.ParentToolCallID+`"`), "%s: the message quotes the request", c.name)
		})
	}
}

// Nested calls keep coming while a cell is suspended: they are admitted
// while the cell its exec/wait left waiting is suspended, and refused once
// a wait ended it.
func TestRouterAdmitsNestedCallsOfASuspendedCell(t *testing.T) {
	g := gomega.NewWithT(t)
	set := tools.NewSet(tools.Echo())
	r := routerWith(set, nil)
	run := func(call, parent string) error {
		_, err := r.invoke(context.Background(), invokeOf("echo", call, parent))
		return err
	}
	g.Expect(run("c1", "exec-1")).To(gomega.Succeed(), "nested in the outstanding exec")
	r.finish("run", "exec-1", "", &result.Result{Status: result.StatusWaiting, RunID: "cell-1"})
	g.Expect(run("c2", "exec-1")).To(gomega.Succeed(), "the exec left cell-1 suspended")

	r.begin("run", "wait-1", "cell-1")
	g.Expect(run("c3", "wait-1")).To(gomega.Succeed(), "nested in the outstanding wait")
	r.finish("run", "wait-1", "cell-1", &result.Result{Status: result.StatusWaiting, RunID: "cell-1"})
	g.Expect(run("c4", "exec-1")).To(gomega.Succeed(), "still suspended: the exec drove it")
	g.Expect(run("c5", "wait-1")).To(gomega.Succeed(), "still suspended: the wait drove it")

	// Two waits race on the cell; the one refused does not end it while
	// the other still runs.
	r.begin("run", "wait-2", "cell-1")
	r.begin("run", "wait-3", "cell-1")
	r.finish("run", "wait-3", "cell-1", &result.Result{Status: result.StatusFailed})
	g.Expect(run("c6", "exec-1")).To(gomega.Succeed(), "wait-2 still resumes the cell")
	r.finish("run", "wait-2", "cell-1", &result.Result{Status: result.StatusCompleted})
	g.Expect(run("c7", "wait-2")).To(gomega.Succeed(), "a nested call of wait-2 may arrive just after its answer")
	age(r, "exec-1", "wait-1", "wait-2", "wait-3")
	g.Expect(run("c7", "exec-1")).To(gomega.MatchError(gomega.ContainSubstring("refused")), "the cell completed")
	g.Expect(r.Refused()).To(gomega.HaveLen(1))

	r.begin("run", "exec-2", "")
	r.finish("run", "exec-2", "", &result.Result{Status: result.StatusWaiting, RunID: "cell-2"})
	r.aborted("run")
	age(r, "exec-2")
	g.Expect(run("c8", "exec-2")).To(gomega.MatchError(gomega.ContainSubstring("refused")), "run.abort ended the cell")
}

// The verdict is taken when the invoke arrives on the wire: a target writes
// a nested call before the answer of its exec, but jrpc2 may run the
// callback after the exec call has returned.
func TestRouterJudgesInvokesInWireOrder(t *testing.T) {
	g := gomega.NewWithT(t)
	set := tools.NewSet(tools.Echo())
	r := routerWith(set, nil)
	legit := invokeOf("echo", "late", "exec-1")
	r.arrive(legit)
	forged := invokeOf("echo", "forged", "exec-1")
	r.finish("run", "exec-1", "", &result.Result{Status: result.StatusCompleted})
	age(r, "exec-1")
	r.arrive(forged)
	_, err := r.invoke(context.Background(), legit)
	g.Expect(err).NotTo(gomega.HaveOccurred(), "arrived while exec-1 was outstanding")
	_, err = r.invoke(context.Background(), forged)
	g.Expect(err).To(gomega.HaveOccurred(), "arrived after exec-1 was answered")
	g.Expect(r.nArrived).To(gomega.Equal(0), "every verdict taken was used")
}

// The channel wrapper shows every tool.invoke request to the router, single
// or batched, and nothing else.
func TestArrivalsSeesInvokeRequests(t *testing.T) {
	var seen []string
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tool.invoke","params":` + invokeParams("a") + `}`,
		`[{"jsonrpc":"2.0","id":2,"method":"tool.invoke","params":` + invokeParams("b") + `},{"jsonrpc":"2.0","id":3,"result":"tool.invoke"}]`,
		`{"jsonrpc":"2.0","method":"tool.invoke","params":{"run":"r","toolCallId":"notification"}}`,
		`{"jsonrpc":"2.0","id":4,"result":{"text":"tool.invoke"}}`,
	}
	ch := &fakeChannel{in: lines}
	a := &arrivals{Channel: ch, see: func(p protocol.InvokeParams) { seen = append(seen, p.ToolCallID) }}
	for range lines {
		if _, err := a.Recv(); err != nil {
			t.Fatal(err)
		}
	}
	gomega.NewWithT(t).Expect(seen).To(gomega.Equal([]string{"a", "b"}), "only tool.invoke requests (with an id) are judged")
}

// invokeParams are well-formed tool.invoke params with toolCallId id.
func invokeParams(id string) string {
	return `{"run":"r","toolCallId":"` + id + `","parentToolCallId":"p","catalogId":"openclaw:core:echo","tool":"echo","source":"openclaw","owner":"core","input":{},` +
		`"context":{"agentId":"a","sessionId":"s","sessionKey":"k","senderId":"u","channel":"c"}}`
}

type fakeChannel struct{ in []string }

func (f *fakeChannel) Send([]byte) error { return nil }
func (f *fakeChannel) Recv() ([]byte, error) {
	b := []byte(f.in[0])
	f.in = f.in[1:]
	return b, nil
}
func (f *fakeChannel) Close() error { return nil }

// The grace for late nested calls never outlives the run: once run.end was
// answered, a call naming the exec answered a moment ago is refused.
func TestRouterRefusesLateInvokesAfterRunEnd(t *testing.T) {
	g := gomega.NewWithT(t)
	set := tools.NewSet(tools.Echo())
	r := routerWith(set, nil)
	r.finish("run", "exec-1", "", &result.Result{Status: result.StatusCompleted})
	_, err := r.invoke(context.Background(), invokeOf("echo", "late", "exec-1"))
	g.Expect(err).NotTo(gomega.HaveOccurred(), "a nested call just after its exec was answered is still admitted")
	r.end("run")
	_, err = r.invoke(context.Background(), invokeOf("echo", "after-end", "exec-1"))
	g.Expect(err).To(gomega.MatchError(gomega.ContainSubstring(`run "run" has ended`)), "a call after run.end is refused, however recent its parent")
	g.Expect(set.Calls()).To(gomega.HaveLen(1), "only the late call before run.end reached the tool")
	g.Expect(r.Refused()).To(gomega.BeEmpty(), "a late call after run.end is not charged as forged: a conforming target may still write one")
	age(r, "exec-1")
	_, err = r.invoke(context.Background(), invokeOf("echo", "stale", "exec-1"))
	g.Expect(err).To(gomega.HaveOccurred(), "refused")
	g.Expect(r.Refused()).To(gomega.HaveLen(1), "a call after run.end whose parent is older than the grace is forged")
}

// A target that floods the harness with refused invokes is given up on
// after maxFloodRefusals: onFlood runs once, later invokes are neither
// judged nor recorded, and the pending verdicts stay bounded.
func TestRouterStopsAtAFlood(t *testing.T) {
	g := gomega.NewWithT(t)
	set := tools.NewSet(tools.Echo())
	r := routerWith(set, nil)
	floods := make(chan string, 10)
	r.onFlood = func(reason string) { floods <- reason }
	for i := range 3 * maxFloodRefusals {
		r.arrive(invokeOf("secret", fmt.Sprintf("forged-%d", i), "exec-1"))
	}
	g.Eventually(floods).Should(gomega.Receive(gomega.ContainSubstring(fmt.Sprintf("more than %d refused tool.invoke calls", maxFloodRefusals))), "onFlood is told")
	g.Consistently(floods, "50ms").ShouldNot(gomega.Receive(), "onFlood runs once")
	g.Expect(r.nArrived).To(gomega.BeNumerically("<=", maxFloodRefusals), "no verdict is kept past the flood")
	_, err := r.invoke(context.Background(), invokeOf("echo", "after", "exec-1"))
	g.Expect(err).To(gomega.MatchError(gomega.ContainSubstring("refused tool.invoke calls")), "a flooded router runs nothing")
	g.Expect(set.Calls()).To(gomega.BeEmpty(), "nothing reached the tool")
	g.Expect(r.Refused()).To(gomega.HaveLen(maxFloodRefusals), "the refusals before the flood are recorded as they arrived, none after it (the spec fails on the flood)")
}

// A refusal is recorded when the invoke arrives, in wire order, not when
// jrpc2 runs its callback: the callback can run after the spec that caused
// it ended, and the next spec then failed for a forged call it never caused
// (the flake of the CLI's forged-invoke test at load 16).
func TestRefusalIsRecordedAtArrival(t *testing.T) {
	g := gomega.NewWithT(t)
	r := routerWith(tools.NewSet(tools.Echo()), nil)
	var got []RefusedInvoke
	r.onRefuse = func(x RefusedInvoke) { got = append(got, x) }
	r.arrive(invokeOf("secret", "forged-1", "exec-1"))
	g.Expect(got).To(gomega.HaveLen(1), "the refusal is recorded as it arrives")
	_, err := r.invoke(context.Background(), invokeOf("secret", "forged-1", "exec-1"))
	g.Expect(err).To(gomega.MatchError(gomega.ContainSubstring("refused tool.invoke")), "the callback still refuses it")
	g.Expect(got).To(gomega.HaveLen(1), "the callback does not record it a second time")
	g.Expect(r.unanswered()).To(gomega.BeEmpty(), "nor does closing the connection")
	g.Expect(r.Refused()).To(gomega.HaveLen(1), "the router lists it once")
}
