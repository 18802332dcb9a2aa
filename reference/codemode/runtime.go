// Package codemode is the reference code mode runtime: it prepares runs
// (activation, catalog), executes cells in fresh QuickJS VMs, suspends them to
// snapshots and resumes them with wait, and dispatches nested tool calls to an
// Invoker. It is transport-free; reference/server binds it to the driver
// protocol.
package codemode

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode-conformance/codemode/reference/bridge"
	"github.com/codemode-conformance/codemode/reference/catalog"
	"github.com/codemode-conformance/codemode/reference/engine"
	refmcp "github.com/codemode-conformance/codemode/reference/mcp"
	"github.com/codemode-conformance/codemode/reference/namespaces"
	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/reference/store"
	"github.com/codemode-conformance/codemode/reference/trajectory"
	"github.com/codemode-conformance/codemode/spec/config"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

// Invoker runs a nested tool call on the host (the harness, in this project).
// A tool that throws returns a *ToolError; any other error is reported to the
// guest the same way with its message.
type Invoker interface {
	Invoke(ctx context.Context, p protocol.InvokeParams) (json.RawMessage, error)
}

// ToolError is a tool's own failure: Message and Data reach the guest as plain
// data (CM-GUEST-10). It is the bridge's (bridge.ToolError); match it with
// errors.As.
type ToolError = bridge.ToolError

// Options configure a Runtime. The zero value of each field means its default.
type Options struct {
	// DrainFraction is the part of timeoutMs the host keeps waiting for
	// unsettled nested calls before it suspends the cell (default 0.25, at most 1).
	DrainFraction float64
	// SuspendEagerly suspends a cell as soon as its guest is idle with a
	// tools.call in flight and nothing has settled, in exec and in every
	// wait, instead of draining for DrainFraction of timeoutMs first: a
	// target that suspends earlier than the reference, which
	// spec/protocol.md §10 allows (harness target fake:eager). Bridge calls
	// (namespace, MCP) and timers still drain as without it: CM-EXEC-15
	// requires ready bridge calls to settle inside the same exec/wait.
	SuspendEagerly bool
	// Suspender keeps suspended VMs (default: serialize linear memory into a
	// snapshot and close the instance, CM-RUN-01).
	Suspender Suspender
	// Admission is the process-wide limit on live VMs and suspended runs
	// that this runtime shares with every other of the process (default
	// ProcessAdmission(), CM-RUN-05).
	Admission *Admission
	// Now is the clock (default time.Now); tests move it to expire snapshots.
	Now func() time.Time
	// UnavailableCause, with a nil engine, is why the engine could not be
	// loaded (e.g. the wasm is not installed): the runtime_unavailable
	// failure of run.prepare says it (CM-CFG-07).
	UnavailableCause error
	// WrapGates, if set, wraps the invoker's Gatekeeper (hooks.go); the
	// broken variants use it to model a runtime that mishandles hooks. It is
	// called for every hook or approval request.
	WrapGates func(Gatekeeper) Gatekeeper
	// Defects are deliberate scheduling defects for the broken variants
	// (fakes/broken); the zero value is the conforming runtime.
	Defects Defects
	// Profile is the contract profile served: "v1" (default) or "v2"
	// (spec/requirements.yaml profiles:); HasFeature derives from it.
	Profile string
	// SessionStore keeps committed session store values (feature
	// session-store; default: the Runtime's own, storeops.go).
	SessionStore SessionStore
	// Results, when set, makes each run's results store (default: a
	// fresh store.Results of maxBytes, storeops.go).
	Results func(p protocol.PrepareParams, maxBytes int64) ResultsStore
}

// Runtime holds every prepared run and every suspended cell of one process.
type Runtime struct {
	eng  *engine.Engine // nil: runtime unavailable (CM-CFG-07)
	inv  Invoker
	opts Options
	tpl  templates
	ns   *namespaces.Registry // process-local namespace registry (namespaces.go)
	// sessions is the default SessionStore (storeops.go).
	sessions store.Sessions
	// transcripts are the session transcripts nested activity is persisted
	// to (feature nested-activity, activity.go).
	transcripts store.Transcripts

	mu    sync.Mutex
	runs  map[string]*agentRun
	cells map[string]*cell  // by runId
	ended map[string]string // why a cell ended, for wait messages (bounded)
	order []string          // ended ids, oldest first

	seq atomic.Int64
	// instances numbers the prepared runs of the process (agentRun.instance).
	instances atomic.Uint64

	sweeper sweepTimer // sweep.go
	// closing is cancelled by Close; MCP connects in flight (connects)
	// run on it, so a shutdown during run.prepare leaves no server behind.
	closing      context.Context
	stopConnects context.CancelFunc
	connects     sync.WaitGroup
}

// agentRun is one prepared agent run: its identity, config and catalog.
type agentRun struct {
	id string
	// instance tells this run from an ended one that had the same id: the
	// session transcript keys its entries and replay identities by it.
	instance uint64
	ctx      protocol.RunContext
	cfg      config.Config
	active   bool
	// cat is the run's hidden catalog; run.update swaps it (update.go),
	// so read it through catalog().
	cat     atomic.Pointer[catalog.Catalog]
	visible []string
	spaces  *namespaces.Run // the run's visible namespaces (namespaces.go)
	// mcp is the run's MCP client, mcpBoot/mcpServers its guest table
	// (mcp.go); nil without MCP servers.
	mcp        *refmcp.Run
	mcpBoot    *prelude.MCPBoot
	mcpServers []refmcp.Server
	// surface is generation 2's catalog surface (signatures.go); nil
	// without feature javascript-only.
	surface *catalogSurface
	// results, sessions and branch bind the run's stores (storeops.go):
	// nil without feature results / session-store or a bound branch.
	// results is the store of the current catalog lifetime: run.update
	// replaces it under mu, and each cell captures it when it starts
	// (cell.results, CM-RES-07).
	results ResultsStore
	// prep is the run.prepare params (MCP tools joined): a catalog
	// replacement keeps their policy and MCP tools (update.go).
	prep     protocol.PrepareParams
	sessions SessionStore
	branch   *store.Branch
	headless bool // session.headless: no automatic references (CM-RES-06)
	// appendFails: faults.storeAppendFails, every commit append fails (CM-STO-06).
	appendFails bool
	// storeErr: session.transcript could not be replayed; store/load reject.
	storeErr error
	gate     gating // hooks and approvals (hooks.go)
	// history is the session branch whose transcript holds the run's
	// nested activity and model calls; nil without nested-activity.
	history     *store.Branch
	transcripts *store.Transcripts
	hooker      MessageHooker // nil: the host takes no message hooks
	defects     Defects
	activity    activityLog // activity.go
	// suppressed rows, kept only under Defects.SuppressedInAgentEnd.
	suppressed []protocol.TrajectoryCall

	mu        sync.Mutex
	execCount int
	waitCount int
	aborted   bool
	// snapEvents wait for the run's next result (CM-TEL-03, snapshotevents.go).
	snapEvents snapshotEvents
	traj       trajectory.Log  // run.trajectory (CM-NEST-07)
	sched      bridge.RunSched // executionMode across the run's cells (CM-NEST-12)
	// denied holds the catalog ids the policy denies when the catalog
	// ignores policy (Defects.QueueSkipsPolicy, queuedefects.go).
	denied map[string]bool
}

// New returns a Runtime. eng may be nil to simulate a missing engine.
func New(eng *engine.Engine, inv Invoker, opts Options) *Runtime {
	if opts.DrainFraction <= 0 || opts.DrainFraction > 1 {
		opts.DrainFraction = 0.25
	}
	if opts.Admission == nil {
		opts.Admission = ProcessAdmission()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Suspender == nil {
		opts.Suspender = SnapshotSuspender{}
	}
	rt := &Runtime{eng: eng, inv: inv, opts: opts, ns: namespaces.NewRegistry(), runs: map[string]*agentRun{}, cells: map[string]*cell{}, ended: map[string]string{}}
	rt.closing, rt.stopConnects = context.WithCancel(context.Background())
	opts.Admission.register(rt)
	return rt
}

// Prepare resolves configuration and policy for a run and returns the
// model-visible surface (CM-ACT-01..04, CM-CFG-01..07).
func (rt *Runtime) Prepare(p protocol.PrepareParams) protocol.PrepareResult {
	res := protocol.PrepareResult{Run: p.Run, Tools: []protocol.ModelTool{}}
	cfg, err := config.Resolve(config.MergeAgent(p.CodeMode, p.AgentCodeMode)) // CM-CFG-10
	if err != nil {
		res.Failure = &protocol.Failure{Code: "invalid_config", Error: err.Error()}
		return res
	}
	if cfg.Enabled {
		c := cfg
		res.EffectiveConfig = &c
	}
	rt.connects.Add(1)
	mcpRun, p := connectMCP(rt.closing, p) // mcp.go: the MCP servers' tools join p.Tools
	rt.connects.Done()
	if rt.closing.Err() != nil && mcpRun != nil { // shut down while connecting: stop what started
		_ = mcpRun.Close()
		mcpRun = nil
	}
	effective := catalog.Effective(p)
	run := &agentRun{id: p.Run, instance: rt.instances.Add(1), ctx: p.RunContext, cfg: cfg, mcp: mcpRun, gate: rt.gatingOf(p)}
	switch {
	case !cfg.Enabled || len(effective) == 0:
		for _, t := range effective {
			schema := t.Parameters
			if len(schema) == 0 {
				schema = json.RawMessage(`{"type":"object","properties":{}}`)
			}
			res.Tools = append(res.Tools, protocol.ModelTool{Name: t.Name, Description: t.Description, InputSchema: schema})
		}
	case rt.eng == nil || (p.Faults != nil && p.Faults.RuntimeUnavailable):
		msg := "code mode is enabled but the quickjs-wasi runtime cannot be loaded; no tools are exposed"
		if rt.eng == nil && rt.opts.UnavailableCause != nil {
			msg += " (" + rt.opts.UnavailableCause.Error() + ")"
		}
		res.Failure = &protocol.Failure{Code: "runtime_unavailable", Error: msg}
	default:
		run.active = true
		hidden, direct := rt.opts.splitDirectOnly(effective) // CM-ACT-08
		run.cat.Store(catalog.Build(hidden))
		if rt.opts.Defects.QueueSkipsPolicy {
			c, denied := rt.catalogIgnoringPolicy(p, hidden) // queuedefects.go
			run.cat.Store(c)
			run.denied = denied
		}
		run.prep = p
		run.mcpBoot, run.mcpServers = mcpTable(run)
		rt.prepareStore(run, p)
		rt.prepareHistory(run, p) // activity.go
		res.CodeModeActive = true
		res.Tools = append(modelTools(cfg), direct...)
		rt.prepareNamespaces(run, res.Tools)
		rt.prepareCatalogSurface(run, res.Tools, p.Tools)
		if f := run.surface.tooLarge(); f != nil { // issue 28 N3: refused here, not in every cell
			run.active = false
			res = protocol.PrepareResult{Run: p.Run, Tools: []protocol.ModelTool{}, Failure: f}
			break
		}
		// The guest catalog's index is built here, not by the first cell,
		// whose timeoutMs it would spend (issue 28 N12).
		guestIndex(run.surface, run.catalog())
		for _, t := range res.Tools {
			run.visible = append(run.visible, t.Name)
		}
	}
	rt.mu.Lock()
	old := rt.runs[p.Run]
	rt.runs[p.Run] = run
	rt.mu.Unlock()
	if old != nil {
		old.leaveBranch() // prepared again: the old run no longer holds its leaf
	}
	return res
}

// HasRun reports whether run id is prepared and not ended.
func (rt *Runtime) HasRun(id string) bool {
	_, ok := rt.run(id)
	return ok
}

func (rt *Runtime) run(id string) (*agentRun, bool) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	r, ok := rt.runs[id]
	return r, ok
}

// Abort marks a run aborted and ends all its cells (snapshots deleted,
// in-flight nested calls canceled).
func (rt *Runtime) Abort(run string) bool {
	r, ok := rt.run(run)
	if !ok {
		return false
	}
	rt.mu.Lock() // lock order rt.mu → r.mu, as in newCell
	r.mu.Lock()
	r.aborted = true
	r.mu.Unlock()
	rt.mu.Unlock()
	r.clearResults() // CM-RES-03
	rt.endCells(run, "aborted")
	r.closeMCP() // no later exec can use them (spec/protocol.md §5.5)
	return true
}

// End forgets a run and everything it left.
func (rt *Runtime) End(run string) bool {
	rt.mu.Lock()
	r, ok := rt.runs[run]
	delete(rt.runs, run)
	rt.mu.Unlock()
	if ok {
		r.clearResults() // CM-RES-03
		r.leaveBranch()  // CM-STO-10
	}
	rt.endCells(run, "ended")
	if ok {
		r.closeMCP()
	}
	return ok
}

func (rt *Runtime) endCells(run, reason string) {
	rt.mu.Lock()
	var victims []*cell
	for id, c := range rt.cells {
		if c.run.id == run {
			victims = append(victims, c)
			delete(rt.cells, id)
			rt.markEnded(id, reason)
		}
	}
	rt.mu.Unlock()
	for _, c := range victims {
		noteDropped(c, false)
		if rt.opts.Defects.QueueOutlivesCell {
			rt.sendQueued(c) // queuedefects.go
		}
		c.terminate()
	}
}

// maxEnded bounds how many ended cells keep their reason: enough for any
// model to still get a precise wait message, never unbounded memory.
const maxEnded = 4096

// markEnded records why cell id ended. Callers hold rt.mu.
func (rt *Runtime) markEnded(id, reason string) {
	if _, ok := rt.ended[id]; !ok {
		rt.order = append(rt.order, id)
	}
	rt.ended[id] = reason
	for len(rt.order) > maxEnded {
		delete(rt.ended, rt.order[0])
		rt.order = rt.order[1:]
	}
}

// Stats reports live VMs, stored snapshots, suspended runs and prepared runs
// of the whole process: every runtime that shares this one's Admission,
// each swept of expired snapshots first (spec/protocol.md §8).
func (rt *Runtime) Stats() protocol.Stats {
	return rt.opts.Admission.stats()
}

// localStats are this runtime's own figures; liveVMs is its engine's.
func (rt *Runtime) localStats() protocol.Stats {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	s := protocol.Stats{Runs: len(rt.runs)}
	if rt.eng != nil {
		s.LiveVMs = rt.eng.LiveVMs()
	}
	for _, c := range rt.cells {
		if sn := c.parked(); sn != nil {
			s.SuspendedRuns++
			if !isContinuation(sn) { // a continuation's VM counts in liveVMs (continuation.go)
				s.Snapshots++
				s.SnapshotBytes += sn.Bytes()
			}
		}
	}
	return s
}

// sweep deletes expired snapshots (CM-RUN-02, CM-RUN-03).
func (rt *Runtime) sweep() {
	now := rt.opts.Now()
	rt.mu.Lock()
	var victims []*cell
	for id, c := range rt.cells {
		if c.expired(now) {
			victims = append(victims, c)
			delete(rt.cells, id)
			rt.markEnded(id, "expired")
		}
	}
	rt.mu.Unlock()
	for _, c := range victims {
		noteDropped(c, true)
		c.terminate()
	}
}

// StopConnecting cancels the MCP connects of run.prepare calls still in
// flight (shutdown): they end at once and stop the servers they started.
func (rt *Runtime) StopConnecting() { rt.stopConnects() }

// Close ends every run and leaves the process's Admission.
func (rt *Runtime) Close() {
	rt.stopConnects() // in-flight MCP connects end now; their children are stopped
	rt.connects.Wait()
	defer rt.sessions.Release() // its session stores no longer count against the process bound
	defer rt.transcripts.Release()
	defer rt.opts.Admission.unregister(rt)
	defer rt.sweeper.stop()
	rt.mu.Lock()
	ids := make([]string, 0, len(rt.runs))
	for id := range rt.runs {
		ids = append(ids, id)
	}
	rt.mu.Unlock()
	for _, id := range ids {
		rt.End(id)
	}
}
