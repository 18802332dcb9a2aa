package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode-conformance/codemode/fakes/tools"
	"github.com/codemode-conformance/codemode/spec/protocol"
	"github.com/codemode-conformance/codemode/spec/result"
	"github.com/codemode-conformance/codemode/suites/evidence"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// RunOptions describe one agent run. CodeMode is the raw `tools.codeMode`
// value: nil (omitted), a bool, a map, or json.RawMessage.
type RunOptions struct {
	CodeMode any
	// AgentCodeMode is the agent's own tools.codeMode (run.prepare
	// agentCodeMode, CM-CFG-10), in CodeMode's forms; nil: none.
	AgentCodeMode any
	Tools         []tools.Tool
	Policy        *protocol.Policy
	DisableTools  bool
	Raw           bool
	// Context overrides the run identity; empty fields get unique values.
	Context protocol.RunContext
	// ID reuses a run id (after RestartTarget); empty means a fresh one.
	ID string
	// Faults are simulated failures (only for targets declaring feature
	// fault-injection; see RequireFeature).
	Faults *protocol.Faults
	// Namespaces changes the target's namespace registry first (feature
	// namespaces; see NamespaceRun).
	Namespaces *protocol.NamespaceChanges
	// MCPServers are fake MCP servers the run gets in run.prepare
	// (mcpServers, feature mcp; see mcpservers.go).
	MCPServers []MCPServer
	// Session binds the run to a session branch (feature session-store).
	Session *protocol.Session
	// Gates answers the run's hooks and approvals (gates.go); nil: the run
	// does not opt in.
	Gates *Gates
	// JudgesRefusal is set by a spec that judges a refused run.prepare
	// itself (CM-CAT-08: a catalog too big may be refused): the refusal
	// does not block it (blockRefusedPrepare).
	JudgesRefusal bool
}

// Enabled returns a `tools.codeMode` object with enabled: true plus fields.
func Enabled(fields map[string]any) map[string]any {
	m := map[string]any{"enabled": true}
	for k, v := range fields {
		m[k] = v
	}
	return m
}

// Run is one prepared agent run on the target. Created with NewRun, it is
// ended (run.end) when the spec finishes, whatever happened.
type Run struct {
	ID       string
	Params   protocol.PrepareParams
	Prepared protocol.PrepareResult
	Tools    *tools.Set
	// MCP holds the run's fake MCP servers by name (RunOptions.MCPServers).
	MCP     map[string]*StartedMCP
	timeout time.Duration

	mu         sync.Mutex
	transcript []evidence.Exchange
	calls      atomic.Int64
}

var runSeq atomic.Int64

// NewRun prepares a run and registers its cleanup. It fails the spec if
// run.prepare itself fails at the protocol level, and blocks a spec outside
// areas CFG and ACT whose config the target refused (blockRefusedPrepare).
func NewRun(ctx context.Context, o RunOptions) *Run {
	ginkgo.GinkgoHelper()
	t := T()
	if o.Policy != nil {
		RequireDrivable(protocol.SurfacePolicy)
	}
	if o.DisableTools {
		RequireDrivable(protocol.SurfaceDisableTools)
	}
	if o.Raw {
		RequireDrivable(protocol.SurfaceRaw)
	}
	n := runSeq.Add(1)
	id := fmt.Sprintf("run-%d-%d", time.Now().UnixNano()%1e9, n)
	if o.ID != "" {
		id = o.ID
	}
	rc := o.Context
	if rc.AgentID == "" {
		rc.AgentID = "agent-" + id
	}
	if rc.SessionID == "" {
		rc.SessionID = "session-" + id
	}
	if rc.SessionKey == "" {
		rc.SessionKey = "agent:" + rc.AgentID + ":" + rc.SessionID
	}
	if rc.SenderID == "" {
		rc.SenderID = "sender-" + id
	}
	if rc.Channel == "" {
		rc.Channel = "conformance"
	}
	set := tools.NewSet(o.Tools...)
	p := protocol.PrepareParams{Run: id, RunContext: rc, Tools: set.Specs(), Policy: o.Policy, DisableTools: o.DisableTools, Raw: o.Raw, Faults: o.Faults, Namespaces: o.Namespaces, Session: o.Session}
	launches, mcps := startMCPServers(o.MCPServers) // before run.end's cleanup: HTTP servers stop after it
	p.MCPServers = launches
	if o.CodeMode != nil {
		raw, ok := o.CodeMode.(json.RawMessage)
		if !ok {
			var err error
			raw, err = json.Marshal(o.CodeMode)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
		}
		p.CodeMode = raw
	}
	if o.AgentCodeMode != nil {
		raw, err := json.Marshal(o.AgentCodeMode)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "marshalling AgentCodeMode")
		p.AgentCodeMode = raw
	}
	p.Hooks, p.Approvals = o.Gates.register(id) // gates.go
	watchProgress(id)                           // streaming.go
	r := &Run{ID: id, Params: p, Tools: set, MCP: mcps, timeout: 10 * time.Second}
	t.router.add(id, p, set)
	// The run lives on t: a target restarted since (RestartTarget, or lost)
	// never knew it, and ending it must not reconnect.
	ginkgo.DeferCleanup(func() {
		if wantsEvidence() {
			ginkgo.AddReportEntry(evidence.TranscriptPrefix+id, r.Evidence(), ginkgo.ReportEntryVisibilityFailureOrVerbose)
		}
		cctx, cancel := context.WithTimeout(context.Background(), Timeouts.Call)
		defer cancel()
		if t.Alive() {
			_ = t.Call(cctx, protocol.MethodRunEnd, protocol.RunParams{Run: id}, nil)
		}
		t.router.end(id)
	})
	cctx, cancel := context.WithTimeout(ctx, Timeouts.Call)
	defer cancel()
	err := t.Call(cctx, protocol.MethodRunPrepare, p, &r.Prepared)
	r.log("run.prepare", p, r.Prepared, err)
	if err != nil {
		blockLoss(t, "during a later run.prepare")
	}
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "run.prepare failed at the protocol level")
	t.router.surface(id, r.Prepared.Tools)
	if r.Prepared.EffectiveConfig != nil && r.Prepared.EffectiveConfig.TimeoutMs > 0 {
		r.timeout = time.Duration(min(r.Prepared.EffectiveConfig.TimeoutMs, 60000)) * time.Millisecond // the clamp's maximum (CM-CFG-05): a target cannot stretch the harness's wait
	} else if m, ok := o.CodeMode.(map[string]any); ok {
		if v, ok := m["timeoutMs"].(int); ok && v > 0 && v <= 60000 {
			r.timeout = time.Duration(v) * time.Millisecond
		}
	}
	if !o.JudgesRefusal {
		blockRefusedPrepare(r, o.CodeMode) // prepared.go
	}
	return r
}

func (r *Run) log(method string, req, resp any, err error) {
	e := evidence.NewExchange(method, req, resp, err)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.transcript = append(r.transcript, e)
}

// Evidence is the typed transcript of this run: every request and response,
// in order, the nested tool invocations the harness answered and the ones
// it refused. A failing spec carries it as the report entry
// "transcript <runId>" (evidence.TranscriptPrefix).
func (r *Run) Evidence() evidence.Transcript {
	r.mu.Lock()
	t := evidence.Transcript{Run: r.ID, Exchanges: append([]evidence.Exchange(nil), r.transcript...)}
	r.mu.Unlock()
	for _, c := range r.Tools.Calls() {
		t.Invocations = append(t.Invocations, evidence.Invocation{Tool: c.Tool, ToolCallID: c.ToolCallID, ParentToolCallID: c.ParentToolCallID, Params: evidence.JSON(c)})
	}
	for _, x := range refusals.of(r.ID) {
		t.Refused = append(t.Refused, x.String())
	}
	return t
}

// Transcript is Evidence as people read it.
func (r *Run) Transcript() string { return r.Evidence().String() }

// RefusedInvokes lists the tool.invoke calls naming this run that the
// harness refused as forged (not nested in a live exec/wait or suspended
// cell of the run, or for a tool its run.prepare does not let guest code
// call), in arrival order. Each also fails the spec during which it
// arrived; specs that make a guest attempt a forged call assert on it.
// Refused invokes are not in Tools.Calls().
func (r *Run) RefusedInvokes() []RefusedInvoke { return refusals.of(r.ID) }

// ModelToolNames lists the names of the model-visible tools.
func (r *Run) ModelToolNames() []string {
	out := []string{}
	for _, t := range r.Prepared.Tools {
		out = append(out, t.Name)
	}
	return out
}

// Result is a decoded exec/wait result plus the exact bytes the target sent.
type Result struct {
	result.Result
	Raw json.RawMessage
	// Code is the guest code of the exec that produced this result (for
	// failure messages).
	GuestCode string
	// ToolCallID is the toolCallId the harness gave the exec/wait call that
	// returned this result (the parentToolCallId of its nested calls).
	ToolCallID string
	// Loop, on a result still waiting when a wait loop stopped (Follow),
	// is WaitLoop.Note: the waits, the time they took and why the loop
	// stopped. String ends with it.
	Loop string
}

// Decoded value of a completed result (nil otherwise).
func (r Result) ValueAny() any {
	var v any
	if len(r.Value) == 0 {
		return nil
	}
	_ = json.Unmarshal(r.Value, &v)
	return v
}

// String describes the result for failure messages: "result <raw JSON>"
// (cut at 4000 bytes) and the guest code. A failing spec whose message
// holds this text also gets the typed evidence.Failure (see failure.go).
func (r Result) String() string {
	s := string(r.Raw)
	if len(s) > 4000 {
		s = s[:4000] + "…"
	}
	out := "result " + s
	if r.Loop != "" {
		out += "\n(" + r.Loop + ")"
	}
	if r.GuestCode != "" {
		out += "\nguest code:\n" + r.GuestCode
	}
	rendered.add(out, r)
	return out
}

// Exec sends exec with {code}.
func (r *Run) Exec(ctx context.Context, code string) Result {
	ginkgo.GinkgoHelper()
	res := r.ExecInput(ctx, map[string]any{"code": code})
	res.GuestCode = code
	return res
}

// ExecInput sends exec with an arbitrary model input.
func (r *Run) ExecInput(ctx context.Context, input any) Result {
	ginkgo.GinkgoHelper()
	return r.toolCall(ctx, protocol.MethodToolExec, input)
}

// Wait sends wait {runId}.
func (r *Run) Wait(ctx context.Context, runID string) Result {
	ginkgo.GinkgoHelper()
	return r.toolCall(ctx, protocol.MethodToolWait, map[string]any{"runId": runID})
}

// WaitInput sends wait with an arbitrary model input.
func (r *Run) WaitInput(ctx context.Context, input any) Result {
	ginkgo.GinkgoHelper()
	return r.toolCall(ctx, protocol.MethodToolWait, input)
}

func (r *Run) toolCall(ctx context.Context, method string, input any) Result {
	ginkgo.GinkgoHelper()
	return r.modelCall(ctx, method, input, ModelCall{})
}

// modelCall sends one exec/wait model call; mc's empty ToolCallID means a
// fresh one (activity.go).
func (r *Run) modelCall(ctx context.Context, method string, input any, mc ModelCall) Result {
	ginkgo.GinkgoHelper()
	res, err := r.modelCallOrError(ctx, method, input, mc)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s failed at the protocol level", method)
	return res
}

// modelCallOrError is modelCall returning a JSON-RPC error instead of
// failing the spec on it.
func (r *Run) modelCallOrError(ctx context.Context, method string, input any, mc ModelCall) (Result, error) {
	ginkgo.GinkgoHelper()
	in, err := json.Marshal(input)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	in = renderedInput(in)
	p := protocol.ToolCallParams{Run: r.ID, ToolCallID: mc.ToolCallID, Input: in, AssistantResponseID: mc.AssistantResponseID}
	if p.ToolCallID == "" {
		p.ToolCallID = fmt.Sprintf("%s-call-%d", r.ID, r.calls.Add(1))
	}
	cctx, cancel := context.WithTimeout(ctx, r.timeout+Timeouts.ToolCallSlack)
	defer cancel()
	// The router must know the call is outstanding before the target can
	// make nested calls under it, and learn whether it left a cell suspended.
	tg := T()
	cell := ""
	if method == protocol.MethodToolWait {
		cell = waitedCell(in)
	}
	var decoded *result.Result
	tg.router.begin(r.ID, p.ToolCallID, cell)
	defer func() { tg.router.finish(r.ID, p.ToolCallID, cell, decoded) }()
	var raw json.RawMessage
	err = tg.Call(cctx, method, p, &raw)
	r.log(method, p, raw, err)
	if err != nil {
		return Result{ToolCallID: p.ToolCallID}, err
	}
	var res Result
	res.Raw = raw
	res.ToolCallID = p.ToolCallID
	res.Result, err = DecodeResult(method, raw)
	if err != nil {
		chargeUnion(err)
	}
	decoded = &res.Result
	checkDialect(res)
	return res, nil
}

// UnionOwner is the requirement that owns the shape of every exec and wait
// result, the completed/waiting/failed union (CM-EXEC-05; CM-EXEC-08's
// "the same result union" for wait). A refusal answered outside it, as
// OpenClaw 2026.7.35's thrown {status: "error"}, is that requirement's fault,
// not one of every spec whose exec or wait was refused (CM-EXEC-01, -09, -11,
// -19, CM-SEC-05, CM-RUN-06).
const UnionOwner = "CM-EXEC-05"

// waitedCell is the runId a wait input names, or "".
func waitedCell(input json.RawMessage) string {
	var in struct {
		RunID string `json:"runId"`
	}
	_ = json.Unmarshal(input, &in)
	return in.RunID
}

// RunToCompletion execs code and follows every waiting result with wait, as a
// model would (Follow). It returns the final result and every intermediate
// one. Specs use it so they do not depend on whether a target drains quick
// nested calls inside exec or suspends at each of them.
func (r *Run) RunToCompletion(ctx context.Context, code string) (Result, []Result) {
	ginkgo.GinkgoHelper()
	return r.Follow(ctx, r.Exec(ctx, code))
}

// Follow answers a waiting result with wait until it is no longer waiting,
// for as long as a WaitLoop allows (Timeouts.FollowBudgets × the run's
// timeoutMs, before the spec's deadline, at most Timeouts.MaxWaits waits),
// returning the final result and every step including res. A target may
// suspend at any point while a nested call is pending (spec/protocol.md
// §10), so the waits are bounded by time, not counted, and before each
// wait the harness pauses until one of the calls the waiting result names
// as pending has returned, for at most a quarter of timeoutMs (the
// reference's own drain; awaitPending). A result still
// waiting then is the target's behaviour, which the spec judges (its
// requirement's verdict, not an error): the result's String, and so the
// spec's failure message, and the report entry "wait loop" say how many
// waits it answered, in how long, and why the harness stopped.
func (r *Run) Follow(ctx context.Context, res Result) (Result, []Result) {
	ginkgo.GinkgoHelper()
	return r.follow(ctx, res, func(id string) Result { return r.Wait(ctx, id) })
}

// follow is Follow with each wait sent by wait.
func (r *Run) follow(ctx context.Context, res Result, wait func(runID string) Result) (Result, []Result) {
	ginkgo.GinkgoHelper()
	code := res.GuestCode
	steps := []Result{res}
	if res.Status != result.StatusWaiting {
		return res, steps
	}
	loop := NewWaitLoop(r.timeout)
	for res.Status == result.StatusWaiting && loop.More() {
		gomega.Expect(res.RunID).NotTo(gomega.BeEmpty(), "waiting result without runId: %s", res.Raw)
		r.awaitPending(res.Result, r.timeout/4)
		res = wait(res.RunID)
		res.GuestCode = code
		steps = append(steps, res)
	}
	if res.Status == result.StatusWaiting {
		res.Loop = loop.Note()
		steps[len(steps)-1] = res
		ginkgo.AddReportEntry("wait loop", fmt.Sprintf("run %s: the cell was %s", r.ID, res.Loop), ginkgo.ReportEntryVisibilityFailureOrVerbose)
	}
	return res, steps
}

// AllOutput concatenates the output of a sequence of results.
func AllOutput(steps []Result) []result.Output {
	var out []result.Output
	for _, s := range steps {
		out = append(out, s.Output...)
	}
	return out
}

// Abort sends run.abort.
func (r *Run) Abort(ctx context.Context) {
	ginkgo.GinkgoHelper()
	RequireDrivable(protocol.SurfaceAbort)
	tg := T()
	err := tg.Call(ctx, protocol.MethodRunAbort, protocol.RunParams{Run: r.ID}, nil)
	r.log("run.abort", protocol.RunParams{Run: r.ID}, nil, err)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "run.abort failed at the protocol level")
	tg.router.aborted(r.ID)
}

// End sends run.end.
func (r *Run) End(ctx context.Context) {
	ginkgo.GinkgoHelper()
	tg := T()
	err := tg.Call(ctx, protocol.MethodRunEnd, protocol.RunParams{Run: r.ID}, nil)
	r.log("run.end", protocol.RunParams{Run: r.ID}, nil, err)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "run.end failed at the protocol level")
	tg.router.end(r.ID)
}

// Stats asks runtime.stats and fails the spec on a protocol error.
func Stats(ctx context.Context) protocol.Stats {
	ginkgo.GinkgoHelper()
	RequireDrivable(protocol.SurfaceStats)
	s, err := T().Stats(ctx)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "runtime.stats")
	return s
}

// Guest is guest code prefixed with the guest dialect (package
// suites/framework/dialect): the helpers every spec may use, rendered for
// the profile the run judges when the cell is sent (Rendered), on one line,
// so the body's line numbers are its own plus one:
//
//   - call(name, input?) resolves with the tool's plain result;
//     dispatch(name, input?) is the surface's own promise of that nested
//     call; search(query, options?), describe(name) and listTools() read
//     the catalog. v1 renders them onto 000's tools/ALL_TOOLS, v2 onto
//     001's catalog handles (spec/protocol.md §12.13). A helper the
//     target's surface lacks makes the spec blocked by the requirement
//     that owns the surface, not failed (dialect.BlockedBy).
//   - id(name) returns the catalog id of the tool named name (ids are the
//     target's own business: specs never hard-code them), from ALL_TOOLS.
//   - callValue(catalogId, x) returns x, the value a tools.call(catalogId, …)
//     or helper call resolved, unchanged unless x is exactly the envelope
//     {tool: {id: catalogId, …}, result: {details, …}} (OpenClaw 2026.7.35
//     resolves {tool, result: {content, details}}); then it returns
//     result.details, the tool's own value. What tools.call resolves to is
//     judged by CM-GUEST-05 alone (see its decision in spec/requirements.yaml);
//     every other spec reads results through call (or callValue) so that an
//     envelope fails CM-GUEST-05 once instead of every requirement whose cell
//     reads a tool's result. Messages of those specs carry [EnvelopeNote].
//
// Once the run's profile is known (in a spec) the dialect is rendered at
// once; before (at package initialisation) Guest leaves a placeholder
// comment (dialectToken) that exec inputs render when sent (Rendered).
func Guest(body string) string {
	return Rendered(dialectToken + "\n" + body)
}

// EnvelopeNote ends the failure messages of specs whose cells read tool
// results through callValue (see [Guest]): it says that the result's shape
// is not what they judge.
const EnvelopeNote = "(tool results are read through callValue, which unwraps a {tool, result: {details}} envelope naming the called id: what tools.call resolves to is judged by CM-GUEST-05 only)"

// Concurrently runs call(i) for i in [0, n) at the same time and returns
// the results in index order once all have returned. Failures inside a call
// fail the spec (each goroutine recovers into Ginkgo).
func Concurrently(n int, call func(i int) Result) []Result {
	out := make([]Result, n)
	var wg sync.WaitGroup
	for i := range out {
		wg.Add(1)
		go func() {
			defer ginkgo.GinkgoRecover()
			defer wg.Done()
			out[i] = call(i)
		}()
	}
	wg.Wait()
	return out
}
