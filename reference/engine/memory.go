package engine

import (
	"sync"

	"github.com/tetratelabs/wazero/experimental"
)

// Linear memory buffers are recycled between instances: every cell is a fresh
// instance, and a fresh Go allocation of its 1.3 MiB memory costs more in page
// faults than the rest of the restore (measured: 7 ms against under 1 ms per
// template restore on the shared 2-core machine). A recycled buffer is zeroed
// up to the length wazero asks for, so an instance sees exactly what a fresh
// one would: no bytes of an earlier cell survive (CM-EXEC-12).
const (
	pooledCap    = 4 << 20 // capacity of a new pooled buffer
	pooledMaxCap = 8 << 20 // larger buffers go back to the Go heap, not the pool
)

var memPool = sync.Pool{New: func() any { b := make([]byte, 0, pooledCap); return &b }}

// memoryAllocator hands wazero recycled buffers.
var memoryAllocator = experimental.MemoryAllocatorFunc(func(_, max uint64) experimental.LinearMemory {
	b := memPool.Get().(*[]byte)
	return &pooledMemory{buf: (*b)[:0], max: max}
})

type pooledMemory struct {
	buf []byte
	max uint64
}

// Reallocate grows the buffer to size bytes, zeroing every byte past the
// previous length (a recycled buffer holds old bytes there).
func (m *pooledMemory) Reallocate(size uint64) []byte {
	if size > m.max && m.max > 0 {
		return nil
	}
	old := uint64(len(m.buf))
	if size > uint64(cap(m.buf)) {
		c := max(size, min(2*uint64(cap(m.buf)), m.max))
		nb := make([]byte, size, c)
		copy(nb, m.buf)
		m.buf = nb
		return m.buf
	}
	m.buf = m.buf[:size]
	if size > old {
		clear(m.buf[old:size])
	}
	return m.buf
}

// Free returns the buffer to the pool; wazero calls it when the instance is
// closed.
func (m *pooledMemory) Free() {
	if m.buf != nil && cap(m.buf) <= pooledMaxCap {
		b := m.buf[:0]
		memPool.Put(&b)
	}
	m.buf = nil
}
