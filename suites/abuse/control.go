package abuse

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	. "github.com/onsi/gomega"
)

// busyCells is how many cells spin at once in the control-under-load spec:
// more than the 64 handlers per connection the reference once ran, behind
// which control requests queued (28 s behind 128 busy execs).
const busyCells = 96

// busyTimeoutMs is the timeoutMs of a spinning cell: long enough that no
// busy cell ends by its deadline before a conforming target has answered
// the control requests, however loaded the machine.
const busyTimeoutMs = 15000

// spin is a cell that never yields: synchronous top-level code.
const spin = `while (true) {}`

var _ = Describe("abuse", "control requests under load", func() {
	It("CM-PROT-03", "with 96 cells busy in synchronous code on one connection, runtime.stats (run.prepare for a target without it) and run.abort are answered before any of them ends", func(ctx SpecContext) {
		RequireDrivable(protocol.SurfaceAbort)
		// Judged through behaviour (issue 24): the control requests are
		// answered before any busy cell ends. runtime.stats is one of them
		// and shows the cells busy where the target has it; without it a
		// fresh run.prepare stands in as the control request.
		withStats := Drivable(protocol.SurfaceStats)
		c := OpenRaw(ctx)
		base := protocol.Stats{}
		if withStats {
			base = stats(ctx, c)
		}
		runs := make([]string, busyCells)
		execs := make([]int64, busyCells)
		for i := range runs {
			runs[i] = prepare(ctx, c, map[string]any{"timeoutMs": busyTimeoutMs})
		}
		for i, run := range runs {
			execs[i] = c.NewID()
			Expect(c.Send(execs[i], protocol.MethodToolExec, execParams(run, spin))).To(Succeed(), "sending exec %d", i)
		}
		// A busy cell ends only by its deadline (timeout) or the abort; an
		// exec the target refused at once (a limit on live VMs) never was
		// busy and does not count.
		firstEnd := func() (RawMessage, bool) {
			for _, m := range c.Received() {
				if !m.IsResponse() {
					continue
				}
				for _, id := range execs {
					if m.HasID(id) {
						if r, ok := decodeResult(m); ok && r.Code == result.CodeTimeout {
							return m, true
						}
					}
				}
			}
			return RawMessage{}, false
		}
		answeredFirst := func(what string, m RawMessage) {
			if end, ok := firstEnd(); ok {
				Expect(m.Seq).To(BeNumerically("<", end.Seq),
					"%s must be answered while the %d cells %q are busy, before any of them ends; it came as message %d, after a busy cell's end (message %d: %s)",
					what, busyCells, spin, m.Seq, end.Seq, end)
			}
		}
		// Stats until it shows a busy cell (each answer is itself a control
		// request answered under load).
		busy := !withStats
		if !withStats {
			raw, _ := json.Marshal(Enabled(nil))
			id := fmt.Sprintf("abuse-control-%d", time.Now().UnixNano()%1e9)
			p := protocol.PrepareParams{Run: id, CodeMode: raw, Tools: []protocol.ToolSpec{}, RunContext: protocol.RunContext{
				AgentID: "agent-" + id, SessionID: "session-" + id, SessionKey: "agent:agent-" + id + ":session-" + id,
				SenderID: "sender-" + id, Channel: "conformance"}}
			cctx, cancel := context.WithTimeout(ctx, time.Duration(busyTimeoutMs)*time.Millisecond+Timeouts.ToolCallSlack)
			m, err := c.Call(cctx, protocol.MethodRunPrepare, p)
			cancel()
			Expect(err).NotTo(HaveOccurred(), "run.prepare must be answered while %d cells are busy", busyCells)
			answeredFirst("run.prepare", m)
		}
		for attempt := 0; attempt < 50 && !busy; attempt++ {
			id := c.NewID()
			Expect(c.Send(id, protocol.MethodRuntimeStats, nil)).To(Succeed(), "sending runtime.stats")
			cctx, cancel := context.WithTimeout(ctx, time.Duration(busyTimeoutMs)*time.Millisecond+Timeouts.ToolCallSlack)
			m, err := c.Response(cctx, id)
			cancel()
			Expect(err).NotTo(HaveOccurred(), "runtime.stats must be answered while %d cells are busy", busyCells)
			answeredFirst("runtime.stats", m)
			var s protocol.Stats
			Expect(json.Unmarshal(m.Result, &s)).To(Succeed(), "runtime.stats result: %s", m)
			busy = s.LiveVMs > base.LiveVMs
		}
		Expect(busy).To(BeTrue(), "runtime.stats never showed a busy cell (liveVMs above the baseline %d) in 50 tries", base.LiveVMs)

		// Abort a run whose cell is still unanswered.
		victim := -1
		for i := len(runs) - 1; i >= 0 && victim < 0; i-- {
			answered := false
			for _, m := range c.Received() {
				answered = answered || (m.IsResponse() && m.HasID(execs[i]))
			}
			if !answered {
				victim = i
			}
		}
		Expect(victim).To(BeNumerically(">=", 0), "every busy cell was answered before run.abort could be sent")
		id := c.NewID()
		Expect(c.Send(id, protocol.MethodRunAbort, protocol.RunParams{Run: runs[victim]})).To(Succeed(), "sending run.abort")
		cctx, cancel := context.WithTimeout(ctx, time.Duration(busyTimeoutMs)*time.Millisecond+Timeouts.ToolCallSlack)
		defer cancel()
		m, err := c.Response(cctx, id)
		Expect(err).NotTo(HaveOccurred(), "run.abort must be answered while %d cells are busy", busyCells)
		Expect(m.Error).To(BeNil(), "run.abort of a busy run must succeed: %s", m)
		answeredFirst("run.abort", m)
		// Stop the rest (not judged here: CM-RUN-09), and let every busy
		// cell end before the next spec takes its baseline of liveVMs.
		for _, run := range runs {
			_ = c.Send(c.NewID(), protocol.MethodRunAbort, protocol.RunParams{Run: run})
		}
		Eventually(func() int {
			n := 0
			for _, m := range c.Received() {
				for _, id := range execs {
					if m.IsResponse() && m.HasID(id) {
						n++
					}
				}
			}
			return n
		}).WithTimeout(time.Duration(busyTimeoutMs)*time.Millisecond+Timeouts.ToolCallSlack).Should(Equal(busyCells),
			"every exec of the %d busy cells must be answered once its run was aborted (or its deadline passed)", busyCells)
	}, Serial)

	It("CM-RUN-09", "run.abort ends a cell in synchronous top-level code with aborted, not timeout, and its VM is released", func(ctx SpecContext) {
		RequireDrivable(protocol.SurfaceStats)
		RequireDrivable(protocol.SurfaceAbort)
		c := OpenRaw(ctx)
		run, exec := spinning(ctx, c)
		m, err := c.Call(ctx, protocol.MethodRunAbort, protocol.RunParams{Run: run})
		Expect(err).NotTo(HaveOccurred(), "run.abort must be answered while the cell spins")
		Expect(m.Error).To(BeNil(), "run.abort of a run with a spinning cell must succeed: %s", m)
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second+Timeouts.ToolCallSlack)
		defer cancel()
		m, err = c.Response(cctx, exec.id)
		Expect(err).NotTo(HaveOccurred(), "the exec of %q must be answered after run.abort", spin)
		res, ok := decodeResult(m)
		Expect(ok).To(BeTrue(), "the exec of %q must answer a result object after run.abort: %s", spin, m)
		Expect(res.Status).To(Equal(result.StatusFailed), "the exec of %q must fail after run.abort: %s", spin, m)
		Expect(res.Code).To(Equal(result.CodeAborted), "the exec of %q must fail with aborted after run.abort (timeout means the abort did not stop the synchronous code): %s", spin, m)
		Eventually(func() int { return stats(ctx, c).LiveVMs }).WithTimeout(10*time.Second).Should(Equal(exec.base.LiveVMs),
			"liveVMs must return to the baseline once the aborted cell ended")
		SelfReported("liveVMs back to the baseline after the abort (runtime.stats)")
	}, Serial)

	It("CM-RUN-09", "run.end releases the VM of a cell in synchronous top-level code before its timeoutMs", func(ctx SpecContext) {
		RequireDrivable(protocol.SurfaceStats)
		c := OpenRaw(ctx)
		run, exec := spinning(ctx, c)
		m, err := c.Call(ctx, protocol.MethodRunEnd, protocol.RunParams{Run: run})
		Expect(err).NotTo(HaveOccurred(), "run.end must be answered while the cell spins")
		Expect(m.Error).To(BeNil(), "run.end of a run with a spinning cell must succeed: %s", m)
		// Order, not time: the VM must be gone before the cell's deadline
		// could have ended it (the exec, if answered at all, not with timeout).
		Eventually(func() int { return stats(ctx, c).LiveVMs }).WithTimeout(10*time.Second).Should(Equal(exec.base.LiveVMs),
			"liveVMs must return to the baseline after run.end, long before the cell's timeoutMs (20 s)")
		for _, m := range c.Received() {
			if m.IsResponse() && m.HasID(exec.id) {
				res, _ := decodeResult(m)
				Expect(res.Code).NotTo(Equal(result.CodeTimeout), "the exec of a run ended by run.end must not end by its deadline: %s", m)
			}
		}
		SelfReported("liveVMs back to the baseline after run.end (runtime.stats)")
	}, Serial)
})

// spinningExec is an exec of spin that the target is running.
type spinningExec struct {
	id   int64
	base protocol.Stats
}

// spinning prepares a run with timeoutMs 20000, sends an exec of spin and
// waits (on runtime.stats) until its VM is live.
func spinning(ctx context.Context, c *RawConn) (string, spinningExec) {
	run := prepare(ctx, c, map[string]any{"timeoutMs": 20000})
	base := stats(ctx, c)
	id := c.NewID()
	Expect(c.Send(id, protocol.MethodToolExec, execParams(run, spin))).To(Succeed(), "sending the exec of %q", spin)
	Eventually(func() int { return stats(ctx, c).LiveVMs }).WithTimeout(10*time.Second).Should(BeNumerically(">", base.LiveVMs),
		fmt.Sprintf("the exec of %q must hold a live VM while it spins", spin))
	return run, spinningExec{id: id, base: base}
}
