package codemode

import (
	"context"

	"github.com/codemode-conformance/codemode/reference/engine"
)

// Parked is a suspended VM as a Suspender keeps it.
type Parked interface {
	// Bytes is the size counted against maxSnapshotBytes.
	Bytes() int64
	// Release frees whatever the parked VM holds; called on every terminal
	// state (CM-RUN-02).
	Release()
}

// Suspender parks a VM when a cell suspends and brings it back on wait.
// Suspend takes ownership of vm; it may refuse, with an error wrapping
// engine.ErrSnapshotTooLarge, a VM that would take more than maxBytes.
type Suspender interface {
	Suspend(vm *engine.VM, maxBytes int64) (Parked, error)
	Resume(ctx context.Context, eng *engine.Engine, p Parked) (*engine.VM, error)
}

// SnapshotSuspender is the conformant Suspender: it copies the VM's linear
// memory, closes the instance, and restores the bytes into a fresh instance
// (CM-RUN-01).
type SnapshotSuspender struct{}

type parkedSnapshot struct{ *engine.Snapshot }

func (p parkedSnapshot) Release() {}

// Suspend snapshots vm and closes it.
func (SnapshotSuspender) Suspend(vm *engine.VM, maxBytes int64) (Parked, error) {
	defer vm.Close(context.Background())
	s, err := vm.SnapshotWithin(maxBytes)
	if err != nil {
		return nil, err
	}
	return parkedSnapshot{s}, nil
}

// Resume restores the snapshot into a fresh instance.
func (SnapshotSuspender) Resume(ctx context.Context, eng *engine.Engine, p Parked) (*engine.VM, error) {
	return eng.Restore(ctx, p.(parkedSnapshot).Snapshot)
}
