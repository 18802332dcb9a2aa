package codemode

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrMemoryBudget is why a cell got no VM: its run's memoryLimitBytes did
// not fit in the process memory budget (serve --max-memory) beside the live
// VMs' for the whole of the call's timeoutMs, or is larger than the budget.
// The cell fails with runtime_unavailable (spec/protocol.md §6).
var ErrMemoryBudget = errors.New("the process memory budget is spent")

// memoryBudget sums the memoryLimitBytes of the live VMs of a process
// against a cap; a zero cap admits everything.
type memoryBudget struct {
	limit int64

	mu       sync.Mutex
	reserved int64
	freed    chan struct{} // closed and replaced whenever memory is released
}

// reserve books n bytes for one VM, waiting while they do not fit within
// ctx. A request larger than the whole budget fails at once.
func (b *memoryBudget) reserve(ctx context.Context, n int64) error {
	if b == nil || b.limit <= 0 {
		return nil
	}
	if n > b.limit {
		return fmt.Errorf("%w: memoryLimitBytes %d is larger than the whole budget of %d bytes (--max-memory)", ErrMemoryBudget, n, b.limit)
	}
	for {
		b.mu.Lock()
		if b.reserved+n <= b.limit {
			b.reserved += n
			b.mu.Unlock()
			return nil
		}
		if b.freed == nil {
			b.freed = make(chan struct{})
		}
		freed, reserved := b.freed, b.reserved
		b.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return fmt.Errorf("%w: live VMs hold %d of %d bytes (--max-memory) and this cell's memoryLimitBytes %d did not fit within timeoutMs; retry later: %w",
				ErrMemoryBudget, reserved, b.limit, n, ctx.Err())
		}
	}
}

// release gives back n bytes booked by reserve.
func (b *memoryBudget) release(n int64) {
	if b == nil || b.limit <= 0 || n == 0 {
		return
	}
	b.mu.Lock()
	b.reserved -= n
	if b.freed != nil {
		close(b.freed)
		b.freed = nil
	}
	b.mu.Unlock()
}

// Reserved is the memory booked by live VMs, in bytes (0 without a budget).
func (a *Admission) Reserved() int64 {
	if a.memory == nil {
		return 0
	}
	a.memory.mu.Lock()
	defer a.memory.mu.Unlock()
	return a.memory.reserved
}
