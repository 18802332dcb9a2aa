package engine

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
)

// Template is a booted VM kept as memory: a VM that has run boot (the prelude)
// and then nothing else. Every VM made from it is a fresh instance with that
// memory (CM-EXEC-12: nothing of one cell reaches the next) and a fresh
// Math.random seed. It is safe for concurrent use.
type Template struct {
	eng     *Engine
	snap    *Snapshot
	randOff uint32 // offset of JSContext.random_state from the JSContext pointer
}

// NewTemplate boots a VM bound by lim with boot and keeps its memory.
func (e *Engine) NewTemplate(ctx context.Context, lim Limits, boot func(context.Context, *VM) error) (*Template, error) {
	vm, err := e.NewVM(ctx, lim)
	if err != nil {
		return nil, err
	}
	defer vm.Close(ctx)
	if err := boot(ctx, vm); err != nil {
		return nil, err
	}
	off, err := vm.findRandomState(ctx)
	if err != nil {
		return nil, err
	}
	snap, err := vm.Snapshot()
	if err != nil {
		return nil, err
	}
	// The template's own base is zero; make the booted memory the base, so
	// snapshots of its VMs store only what a cell changed.
	mem := make([]byte, snap.size)
	for i, c := range snap.chunks {
		copy(mem[c*ChunkSize:], snap.data[i*ChunkSize:(i+1)*ChunkSize])
	}
	base := &Snapshot{base: &baseMemory{mem: mem}, size: snap.size, sp: snap.sp, pages: snap.pages, limits: snap.limits, scratch: snap.scratch}
	return &Template{eng: e, snap: base, randOff: off}, nil
}

// NewVM restores the template into a fresh instance and reseeds Math.random.
func (t *Template) NewVM(ctx context.Context) (*VM, error) {
	vm, err := t.eng.Restore(ctx, t.snap)
	if err != nil {
		return nil, err
	}
	var seed [8]byte
	for binary.LittleEndian.Uint64(seed[:]) == 0 { // xorshift64* never leaves 0
		rand.Read(seed[:])
	}
	if !vm.mem.Write(vm.jsctx+t.randOff, seed[:]) {
		vm.Close(ctx)
		return nil, fmt.Errorf("%w: cannot reseed Math.random", ErrUnavailable)
	}
	return vm, nil
}

// MemoryBytes is the size of the template's linear memory.
func (t *Template) MemoryBytes() int64 { return int64(t.snap.size) }

// findRandomState finds Math.random's state (JSContext.random_state, seeded
// once per context) in this build: the one 8-byte word of the JSContext that
// changes on every Math.random() and not on other evaluations. It fails
// closed, so a build where that does not hold is unavailable rather than a
// template whose cells all draw the same numbers.
func (vm *VM) findRandomState(ctx context.Context) (uint32, error) {
	const span = 4096
	read := func(src string) ([]byte, error) {
		if _, err := vm.Eval(ctx, src, "seed"); err != nil {
			return nil, err
		}
		b, ok := vm.mem.Read(vm.jsctx, span)
		if !ok {
			return nil, fmt.Errorf("%w: JSContext out of range", ErrUnavailable)
		}
		return bytes.Clone(b), nil
	}
	var snaps [5][]byte
	for i, src := range []string{"0", "0", "Math.random()", "Math.random()", "0"} {
		b, err := read(src)
		if err != nil {
			return 0, err
		}
		snaps[i] = b
	}
	var found []uint32
	for off := uint32(0); off+8 <= span; off += 8 {
		w := func(i int) uint64 { return binary.LittleEndian.Uint64(snaps[i][off:]) }
		if w(0) == w(1) && w(1) != w(2) && w(2) != w(3) && w(3) == w(4) {
			found = append(found, off)
		}
	}
	if len(found) != 1 {
		return 0, fmt.Errorf("%w: cannot locate Math.random's state in this QuickJS build (%d candidates)", ErrUnavailable, len(found))
	}
	return found[0], nil
}
