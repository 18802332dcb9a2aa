package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tetratelabs/wazero/api"
)

// Grace is how long after its deadline (or cancellation) a VM gets to reach
// an interrupt check before the watchdog abandons it. The interrupt handler
// stops bytecode within a millisecond, and the loop polls (looppoll.go) put
// every native loop in reach of it; only a single bulk-memory instruction
// (memory.copy or memory.fill, 0.1 s per 128 MiB) runs between two polls
// (ENGINE.md, "Native loops"). While a native call runs past its deadline
// it holds up every GC of the process, which is why the watchdog exists.
var Grace = time.Second

// guest calls f, an export that may run guest code, under ctx: at ctx's
// deadline or cancellation the VM's stop flag is set, so QuickJS's interrupt
// handler throws an uncatchable error at its next poll; if f has not returned
// Grace later, the VM is abandoned: its call goes on in the background (the
// instance is closed when it returns) and the caller gets a Trap wrapping
// ErrDeadline or ErrCanceled and ErrAbandoned.
func (vm *VM) guest(ctx context.Context, f api.Function, args ...uint64) ([]uint64, error) {
	if vm.dead != nil {
		return nil, vm.dead
	}
	if ctx.Err() != nil {
		vm.markStop(ctx)
		return nil, vm.stopped()
	}
	disarm := context.AfterFunc(ctx, func() { vm.markStop(ctx) })
	defer disarm()
	sl := enterGuest(ctx, vm) // a run slot (slots.go)
	if sl == nil {
		return nil, vm.stopped()
	}
	done := make(chan outcome, 1)
	call := withSlot(context.WithValue(context.WithoutCancel(ctx), vmKey{}, vm), sl)
	go func() {
		res, err := f.Call(call, args...)
		sl.release()
		done <- outcome{res, err}
	}()
	var o outcome
	select {
	case o = <-done:
	case <-ctx.Done():
		t := time.NewTimer(Grace)
		select {
		case o = <-done:
			t.Stop()
		case <-t.C:
			sl.release()
			return nil, vm.abandon(done)
		}
	}
	if o.err != nil {
		if err := vm.stopped(); err != nil {
			return nil, err
		}
		return nil, vm.kill(vm.trapCause(o.err))
	}
	return o.res, nil
}

// outcome is what a wasm call returned.
type outcome struct {
	res []uint64
	err error
}

// markStop sets the stop flag from ctx's error.
func (vm *VM) markStop(ctx context.Context) {
	reason := stopDeadline
	if errors.Is(ctx.Err(), context.Canceled) {
		reason = stopCanceled
	}
	vm.stop.CompareAndSwap(stopNone, reason)
}

// abandon gives the VM up while a call still runs in it; the instance is
// closed once that call returns.
func (vm *VM) abandon(done <-chan outcome) error {
	vm.abandoned.Store(true)
	mod, eng := vm.mod, vm.eng
	go func() {
		<-done
		mod.Close(context.Background())
		eng.live.Add(-1)
	}()
	cause := ErrDeadline
	if vm.stop.Load() == stopCanceled {
		cause = ErrCanceled
	}
	return vm.kill(fmt.Errorf("%w (%w)", cause, ErrAbandoned))
}
