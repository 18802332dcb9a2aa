package engine

import (
	"context"
	"errors"
	"fmt"
)

// Snapshot is a suspended VM: a copy of the whole linear memory plus the
// pointers the host needs to keep driving it. It holds no live instance
// (CM-RUN-01).
type Snapshot struct {
	Memory []byte
	pages  uint32
	rt     uint32
	jsctx  uint32
	pctx   uint32
}

// Bytes is the snapshot's size in bytes.
func (s *Snapshot) Bytes() int64 { return int64(len(s.Memory)) }

// Snapshot copies the VM's memory. It must be called while no wasm call is on
// the stack (always true between host calls, since a VM is single-threaded).
func (vm *VM) Snapshot() (*Snapshot, error) {
	if vm.dead != nil {
		return nil, vm.dead
	}
	b, ok := vm.mem.Read(0, vm.mem.Size())
	if !ok {
		return nil, errors.New("snapshot: memory read failed")
	}
	return &Snapshot{Memory: append([]byte(nil), b...), pages: vm.pages, rt: vm.rt, jsctx: vm.jsctx, pctx: vm.pctx}, nil
}

// Restore instantiates a fresh module (without running its initializer), grows
// its memory to the snapshot's size and writes the bytes back. The result
// continues exactly where the snapshot was taken.
func (e *Engine) Restore(ctx context.Context, s *Snapshot) (*VM, error) {
	if s == nil || len(s.Memory)%PageSize != 0 {
		return nil, errors.New("restore: malformed snapshot")
	}
	rt, err := e.runtime(ctx, s.pages)
	if err != nil {
		return nil, err
	}
	vm, err := e.instantiate(ctx, rt)
	if err != nil {
		return nil, err
	}
	want := uint32(len(s.Memory) / PageSize)
	have := vm.mem.Size() / PageSize
	if want > have {
		if _, ok := vm.mem.Grow(want - have); !ok {
			vm.Close(ctx)
			return nil, fmt.Errorf("restore: cannot grow memory to %d pages", want)
		}
	}
	if !vm.mem.Write(0, s.Memory) {
		vm.Close(ctx)
		return nil, errors.New("restore: memory write failed")
	}
	vm.pages, vm.rt, vm.jsctx, vm.pctx, vm.plen = s.pages, s.rt, s.jsctx, s.pctx, s.pctx+4
	return vm, nil
}
