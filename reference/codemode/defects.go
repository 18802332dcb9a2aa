package codemode

import (
	"github.com/codemode-conformance/codemode/reference/bridge"
	"github.com/codemode-conformance/codemode/spec/config"
)

// Defects switch on scheduling and nested-activity defects that the specs
// must catch; only fakes/broken sets them.
type Defects struct {
	// CellLocalOrder orders executionMode within each cell only, not
	// across the cells of a run (CM-NEST-12).
	CellLocalOrder bool
	// CellCatalog resolves a cell's nested calls in the catalog of the
	// cell's start, so a restriction spares parked cells (CM-RES-07).
	CellCatalog bool
	// CatalogInVM copies the run's whole guest catalog into every cell's
	// VM (the boot config keeps it), as the reference did before issue 28
	// N3: VMs and snapshots grow with the catalog (CM-CAT-08).
	CatalogInVM bool
	// RefillFirst sends queued calls as soon as a slot frees, before the
	// guest has run the continuation of the call that freed it (CM-NEST-15).
	RefillFirst bool
	// TimerFromCall measures a queued guest timer's delay from the
	// setTimeout call, not from when it got a slot (CM-NEST-13).
	TimerFromCall bool
	// ReplayIgnoresResponse derives nested call ids from the run and the
	// exec call id only, not its assistant response (CM-NEST-18).
	ReplayIgnoresResponse bool
	// ReplayIgnoresInput derives nested call ids without the exec input, so
	// a repeat of the call ids with other code collides (CM-NEST-18).
	ReplayIgnoresInput bool
	// ReplayWhileLive accepts a replay of an exec call whose cell is still
	// live, so both cells' nested calls share their ids (CM-NEST-18).
	ReplayWhileLive bool
	// ReplayActivity puts the nested activity into run.trajectory's replay
	// view, as if it were replayed to the provider (CM-NEST-17).
	ReplayActivity bool
	// SuppressedInAgentEnd hands rows a before_message_write hook suppressed
	// to hook.agentEnd all the same (CM-NEST-19).
	SuppressedInAgentEnd bool
	// PersistStarts writes a nested call's activity row when it starts,
	// status pending, not only once it completed (CM-NEST-18).
	PersistStarts bool
	// QueueSkipsPolicy looks a call that must queue up among every tool
	// the run declared, policy-denied ones included (CM-NEST-16).
	QueueSkipsPolicy bool
	// QueueOutlivesCell sends a cell's queued calls when the cell ends
	// (aborted, ended) instead of dropping them (CM-NEST-16).
	QueueOutlivesCell bool
	// QueueStaleSpec sends a queued call as it was resolved when it was
	// queued, not against the run's catalog when it is sent: a run.update
	// meanwhile (a restriction, a redeclared spec) does not reach it
	// (CM-NEST-16).
	QueueStaleSpec bool
	// QueueUncounted leaves queued inputs out of memoryLimitBytes
	// (CM-NEST-16).
	QueueUncounted bool
	// AnyOutputs types the output of a tool without an output schema as
	// any instead of unknown, in the quick index, on its handle and in its
	// declaration (CM-TS-06, signatures.go).
	AnyOutputs bool
	// DeclareDenied also serves the declarations of tools the policy
	// keeps from the run (CM-TS-06, signatures.go).
	DeclareDenied bool
	// CompleteUndelivered completes a cell whose value is determined once
	// the harness answered its nested calls, without delivering the answers:
	// the guest's continuations of those calls never run (CM-EXEC-06).
	CompleteUndelivered bool
	// StartBeforeBatchLimit starts the calls of a batch over
	// maxPendingToolCalls (under bridge-queue: over the queue) one by one
	// until the limit, then fails the cell, instead of failing it before any
	// starts (CM-NEST-23; under pending-call-limit this conforms, §14.17).
	StartBeforeBatchLimit bool
	// ResumeKeepsSuspendedPlace leaves a cell that wait restores counted
	// among the process's suspended runs: the count falls only when a
	// parked snapshot is deleted (run.abort, run.end, expiry), so cells
	// that complete through wait keep their places and, after 64 of them,
	// every new suspension fails with too many suspended code mode runs
	// (CM-RUN-05).
	ResumeKeepsSuspendedPlace bool
}

// bridgeConfig is what a cell's bridge takes of a run of config cfg under
// these options: the profile's features bridge-queue and execution-mode and
// the bridge's defects.
func (o Options) bridgeConfig(cfg config.Config) bridge.Config {
	d := o.Defects
	return bridge.Config{Run: cfg, Queue: o.HasFeature("bridge-queue"), ExecutionMode: o.HasFeature("execution-mode"),
		Defects: bridge.Defects{CellLocalOrder: d.CellLocalOrder, TimerFromCall: d.TimerFromCall, QueueStaleSpec: d.QueueStaleSpec,
			QueueUncounted: d.QueueUncounted, StartBeforeBatchLimit: d.StartBeforeBatchLimit}}
}
