package codemode

import (
	"context"
	"sync"
	"time"

	"github.com/codemode-conformance/codemode/reference/bridge"
	"github.com/codemode-conformance/codemode/reference/catalog"
	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/prelude"
	"github.com/codemode-conformance/codemode/reference/store"
	"github.com/codemode-conformance/codemode/spec/result"
)

// cell is one code mode run (one exec and the waits that continue it). Its
// runId is the id wait takes.
type cell struct {
	id string
	// replayID is the cell's replay identity under nested-activity, from
	// which its nested call ids derive (activity.go, CM-NEST-18); "" else.
	replayID string
	// origin is the [assistantResponseId, toolCallId] of the exec call that
	// started the cell (LiveReplay, activity.go).
	origin [2]string
	run    *agentRun
	adm    *Admission // counts the cell's snapshot while it holds one

	// callCtx outlives a single exec/wait: nested calls keep running while
	// the cell is suspended. cancel ends them (terminal states, abort).
	callCtx context.Context
	cancel  context.CancelFunc
	// calls is the cell's bridge: its nested calls in flight and queued,
	// its guest timers (reference/bridge). It has its own lock, taken
	// after mu when both are held.
	calls *bridge.Calls

	mu      sync.Mutex
	state   string // running | waiting | resuming | ended
	snap    Parked
	expires time.Time
	ready   []prelude.Delivery // settled results not yet delivered to the VM
	yieldID int64

	// br is the bridge of the template the cell's VM came from; value is
	// the promise of the cell's value (0 if the code never started) and
	// sealed whether the prelude was told it settled (CM-NEST-23). Both
	// handles live in VM memory, so they survive a snapshot.
	br     *prelude.Bridge
	value  engine.Value
	sealed bool

	counts  map[string]int
	bridged map[int64]bool // request ids of bridge calls, namespace and MCP (Options.SuspendEagerly drains them)
	// toolFailures are the messages of the nested_tool_failed errors the
	// host delivered: only those may fail the cell with that code (the
	// guest can reach the bridge's deliver and forge one).
	toolFailures map[string]bool
	// writes are the cell's uncommitted session store writes (storeops.go).
	writes store.WriteSet
	// network is set once the cell saw network-controlled content
	// (untrusted.go, CM-NEST-20).
	network networkMark
	// results is the run's results store when the cell started: the cell
	// keeps it across waits and never adopts a replacement (CM-RES-07).
	results ResultsStore
	// cat is the run's catalog when the cell started: the entries the cell
	// boots with; only the broken variant Defects.CellCatalog also resolves
	// calls in it (update.go).
	cat *catalog.Catalog
	// surface is the run's catalog surface when the cell started (nil
	// without javascript-only): the globals and declarations it boots with.
	surface *catalogSurface
	// index serves the guest's catalog queries: guestEntries of cat and
	// surface, kept on the host (issue 28 N3).
	index *prelude.CatalogIndex
	// ts maps lines of a typescript cell back to its source (sourcelines.go).
	ts *tsLines
}

func (c *cell) parked() Parked {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.snap
}

func (c *cell) expired(now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state == "waiting" && !c.expires.IsZero() && now.After(c.expires)
}

// terminate deletes the snapshot and cancels in-flight nested calls; nothing
// of the cell is kept (CM-RUN-02).
func (c *cell) terminate() {
	c.mu.Lock()
	c.state = "ended"
	if c.snap != nil {
		c.snap.Release()
		c.adm.releaseSuspended()
	}
	c.snap = nil
	c.calls.End()
	c.ready = nil
	c.mu.Unlock()
	c.discardWrites() // CM-STO-02
	c.cancel()
}

// pendingCalls lists unsettled nested calls in request order.
func (c *cell) pendingCalls() []result.PendingToolCall {
	return c.calls.Pending()
}
