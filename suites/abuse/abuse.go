// Package abuse holds the protocol-abuse specs: what a target does with a
// hostile or careless peer on its connection. Oversized and unterminated
// lines, floods, control requests under load, an abort during synchronous
// guest code, and JSON-RPC's error codes (CM-PROT-*, CM-RUN-09). Each spec
// speaks on a raw connection of its own (framework.OpenRaw), so it can
// write bytes no well-behaved client sends, and judges order on the wire,
// never wall-clock time.
package abuse

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	. "github.com/codemode-conformance/codemode/suites/framework"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// maxMessageBytes is the maximum message size protocol.md §1 gives every
// peer by default (16 MiB, without the newline). The protocol has no way for
// a target to declare another, so the oversized lines are judged against
// the default: a target started with a higher bound runs them and fails
// CM-PROT-01's specs.
const maxMessageBytes = protocol.DefaultMaxMessageBytes

var runSeq atomic.Int64

// prepare prepares a code mode run with codeMode fields and the fake echo
// tool (which the raw connection does not serve) on c
// and returns its id; the run is not ended (the connection's close ends it).
func prepare(ctx context.Context, c *RawConn, fields map[string]any) string {
	ginkgo.GinkgoHelper()
	n := runSeq.Add(1)
	id := fmt.Sprintf("abuse-%d-%d", time.Now().UnixNano()%1e9, n)
	raw, _ := json.Marshal(Enabled(fields))
	p := protocol.PrepareParams{Run: id, CodeMode: raw, Tools: tools.NewSet(tools.Echo()).Specs(), RunContext: protocol.RunContext{
		AgentID: "agent-" + id, SessionID: "session-" + id, SessionKey: "agent:agent-" + id + ":session-" + id,
		SenderID: "sender-" + id, Channel: "conformance"}}
	cctx, cancel := context.WithTimeout(ctx, Timeouts.Call)
	defer cancel()
	m, err := c.Call(cctx, protocol.MethodRunPrepare, p)
	Expect(err).NotTo(HaveOccurred(), "run.prepare %s must be answered", id)
	Expect(m.Error).To(BeNil(), "run.prepare %s must succeed: %s", id, m)
	var pr protocol.PrepareResult
	Expect(json.Unmarshal(m.Result, &pr)).To(Succeed(), "run.prepare result: %s", m)
	Expect(pr.CodeModeActive).To(BeTrue(), "run.prepare with tools.codeMode %s must activate code mode: %s", raw, m)
	return id
}

// execParams is the tool.exec of code on run.
func execParams(run, code string) protocol.ToolCallParams {
	in, _ := json.Marshal(map[string]string{"code": code})
	return protocol.ToolCallParams{Run: run, ToolCallID: fmt.Sprintf("%s-exec-%d", run, runSeq.Add(1)), Input: in}
}

// decodeResult decodes the result of an exec/wait response.
func decodeResult(m RawMessage) (result.Result, bool) {
	var r result.Result
	if m.Error != nil || json.Unmarshal(m.Result, &r) != nil {
		return r, false
	}
	return r, true
}

// expectServing proves c still serves: a fresh run executes a trivial cell
// (return 6 * 7 completes with 42) and is ended. after names what came before.
func expectServing(ctx context.Context, c *RawConn, after string) {
	ginkgo.GinkgoHelper()
	Expect(c.Closed()).To(BeFalse(), "the target closed the connection after %s", after)
	run := prepare(ctx, c, map[string]any{"timeoutMs": 10000})
	cctx, cancel := context.WithTimeout(ctx, 25*time.Second)
	defer cancel()
	code := `return 6 * 7`
	m, err := c.Call(cctx, protocol.MethodToolExec, execParams(run, code))
	Expect(err).NotTo(HaveOccurred(), "after %s, the trivial cell %q must be answered", after, code)
	res, ok := decodeResult(m)
	Expect(ok).To(BeTrue(), "after %s, the trivial cell %q must get a result object: %s", after, code, m)
	Expect(res.Status).To(Equal(result.StatusCompleted), "after %s, the trivial cell %q must complete: %s", after, code, m)
	Expect(string(res.Value)).To(Equal("42"), "after %s, the trivial cell %q must return 42: %s", after, code, m)
	m, err = c.Call(cctx, protocol.MethodRunEnd, protocol.RunParams{Run: run})
	Expect(err).NotTo(HaveOccurred(), "after %s, run.end must be answered", after)
	Expect(m.Error).To(BeNil(), "after %s, run.end must succeed: %s", after, m)
}

// answered sends method (no params) on c and expects an answer, a result or
// an error.
func answered(ctx context.Context, c *RawConn, method string) {
	ginkgo.GinkgoHelper()
	cctx, cancel := context.WithTimeout(ctx, Timeouts.Call)
	defer cancel()
	_, err := c.Call(cctx, method, nil)
	Expect(err).NotTo(HaveOccurred(), "%s must be answered", method)
}

// stats asks runtime.stats on c.
func stats(ctx context.Context, c *RawConn) protocol.Stats {
	ginkgo.GinkgoHelper()
	cctx, cancel := context.WithTimeout(ctx, Timeouts.Call)
	defer cancel()
	m, err := c.Call(cctx, protocol.MethodRuntimeStats, nil)
	Expect(err).NotTo(HaveOccurred(), "runtime.stats must be answered")
	Expect(m.Error).To(BeNil(), "runtime.stats must succeed: %s", m)
	var s protocol.Stats
	Expect(json.Unmarshal(m.Result, &s)).To(Succeed(), "runtime.stats result: %s", m)
	return s
}
