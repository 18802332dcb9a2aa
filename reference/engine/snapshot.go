package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/tetratelabs/wazero/api"
)

// ChunkSize is the granularity of a snapshot: a snapshot stores only the
// chunks of linear memory that differ from the template the VM was restored
// from (or from zero, for a VM made with NewVM), so an idle suspended cell
// costs a few KiB instead of its whole memory (measured: 14 KiB for a
// parked promise, against 1.3 MiB of linear memory).
const ChunkSize = 256

// baseMemory is a template's linear memory, shared read-only by every VM
// restored from it and every snapshot of those VMs.
type baseMemory struct{ mem []byte }

// Snapshot is a suspended VM: the chunks of its linear memory that differ
// from its base, plus what the host needs to keep driving it. It holds no
// live instance (CM-RUN-01).
type Snapshot struct {
	base    *baseMemory // nil: the base is all zeros
	size    uint32      // linear memory size in bytes
	chunks  []uint32    // indices of the stored chunks, ascending
	data    []byte      // the stored chunks, ChunkSize bytes each
	sp      uint64      // __stack_pointer
	pages   uint32
	limits  Limits
	scratch uint32
}

// Bytes is the snapshot's stored size in bytes: the differing chunks and
// their indices.
func (s *Snapshot) Bytes() int64 { return int64(len(s.data) + 4*len(s.chunks)) }

// MemoryBytes is the size of the linear memory the snapshot restores.
func (s *Snapshot) MemoryBytes() int64 { return int64(s.size) }

var zeroChunk = make([]byte, ChunkSize)

// Snapshot copies the chunks of the VM's memory that differ from its base.
// It must be called while no wasm call is on the stack (always true between
// host calls, since a VM is single-threaded).
func (vm *VM) Snapshot() (*Snapshot, error) { return vm.SnapshotWithin(0) }

// ErrSnapshotTooLarge is returned by SnapshotWithin when the snapshot would
// take more than its bound (CM-RUN-04).
var ErrSnapshotTooLarge = errors.New("snapshot exceeds its size bound")

// SnapshotWithin is Snapshot, but it stops, with an error wrapping
// ErrSnapshotTooLarge, as soon as the stored bytes pass maxBytes (0: no
// bound), so a cell holding a huge heap costs neither the time nor the host
// memory of a copy that would be refused anyway.
func (vm *VM) SnapshotWithin(maxBytes int64) (*Snapshot, error) {
	if vm.dead != nil {
		return nil, vm.dead
	}
	size := vm.mem.Size()
	cur, ok := vm.mem.Read(0, size)
	if !ok {
		return nil, errors.New("snapshot: memory read failed")
	}
	s := &Snapshot{base: vm.base, size: size, pages: vm.pages, limits: vm.limits, scratch: vm.scratch}
	var base []byte
	if vm.base != nil {
		base = vm.base.mem
	}
	for off := uint32(0); off < size; off += ChunkSize {
		c := cur[off : off+ChunkSize]
		ref := zeroChunk
		if int(off) < len(base) {
			ref = base[off : off+ChunkSize]
		}
		if !bytes.Equal(c, ref) {
			s.chunks = append(s.chunks, off/ChunkSize)
			s.data = append(s.data, c...)
			if maxBytes > 0 && s.Bytes() > maxBytes {
				return nil, fmt.Errorf("%w: more than %d bytes", ErrSnapshotTooLarge, maxBytes)
			}
		}
	}
	if g := vm.mod.ExportedGlobal("__stack_pointer"); g != nil {
		s.sp = g.Get()
	}
	return s, nil
}

// Restore instantiates a fresh module (without running its initializer),
// writes the snapshot's base and chunks into its memory and continues exactly
// where the snapshot was taken.
func (e *Engine) Restore(ctx context.Context, s *Snapshot) (*VM, error) {
	if s == nil || s.size%PageSize != 0 || len(s.data) != len(s.chunks)*ChunkSize {
		return nil, ErrSnapshot
	}
	rt, err := e.runtime(ctx, s.pages)
	if err != nil {
		return nil, err
	}
	defer holdSlot()() // copying memory is CPU work too (slots.go)
	var vm *VM
	if s.base != nil && s.sp != 0 && len(s.base.mem) <= int(s.size) {
		if in := rt.takeIdle(uint32(len(s.base.mem))); in != nil {
			vm = e.vmOn(in) // load overwrites all of its memory (instances.go)
		}
	}
	if vm == nil {
		if vm, err = e.instantiate(ctx, rt); err != nil {
			return nil, err
		}
	}
	if err := vm.load(s); err != nil {
		vm.Close(ctx)
		return nil, err
	}
	if err := vm.setup(ctx); err != nil {
		vm.Close(ctx)
		return nil, err
	}
	return vm, nil
}

// load writes s into a fresh instance's memory.
func (vm *VM) load(s *Snapshot) error {
	want := s.size / PageSize
	if have := vm.mem.Size() / PageSize; want > have {
		if _, ok := vm.mem.Grow(want - have); !ok {
			return fmt.Errorf("%w: cannot grow memory to %d pages", ErrSnapshot, want)
		}
	}
	if s.base != nil && !vm.mem.Write(0, s.base.mem) {
		return fmt.Errorf("%w: base write failed", ErrSnapshot)
	}
	for i, c := range s.chunks {
		if !vm.mem.Write(c*ChunkSize, s.data[i*ChunkSize:(i+1)*ChunkSize]) {
			return fmt.Errorf("%w: chunk %d out of range", ErrSnapshot, c)
		}
	}
	if g, ok := vm.mod.ExportedGlobal("__stack_pointer").(api.MutableGlobal); ok && s.sp != 0 {
		g.Set(s.sp)
	}
	vm.pages, vm.limits, vm.base, vm.scratch = s.pages, s.limits, s.base, s.scratch
	return nil
}
