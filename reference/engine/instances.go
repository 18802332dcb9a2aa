package engine

import (
	"context"
	goruntime "runtime"

	"github.com/tetratelabs/wazero/api"
)

// Instances are reused between cells. A fresh wasm instance per cell cost
// more than the cell itself: instantiating builds the 661-entry function
// table and a Go object per looked-up export, each with its own native
// stack that then grows by copying on the first deep call (about 30% of the
// CPU of a trivial exec in a profile of 2026-11-30, against 6% for copying
// the template's memory). A VM restored from a template gives its instance
// back when it closes cleanly, and the next restore of a snapshot with the
// same base writes that base over the whole linear memory: an instance is
// only reused when its memory is exactly the base's size (wasm memory
// cannot shrink), so every byte of it is overwritten, and the module's
// mutable global __stack_pointer is set from the snapshot (the other one,
// looppoll.go's iteration counter, only decides when the next poll comes,
// and no guest can read it). The function
// table is never written by this build (no extensions are loaded). So a
// reused instance holds exactly what a fresh one restored from the same
// snapshot would (CM-EXEC-12); the test template_test.go's "reused
// instance" proves nothing of a cell survives.

// instance is one wasm module instance with its exports looked up once.
type instance struct {
	rt      *runtime
	mod     api.Module
	exports map[string]api.Function
}

// export returns the exported function name (nil when there is none).
func (in *instance) export(name string) api.Function {
	if f, ok := in.exports[name]; ok {
		return f
	}
	f := in.mod.ExportedFunction(name)
	in.exports[name] = f
	return f
}

// maxIdle bounds the idle instances kept per runtime (each holds its linear
// memory, 1.3 MiB for a template VM, and its call stacks).
func maxIdle() int { return max(4, 2*goruntime.GOMAXPROCS(0)) }

// takeIdle returns an idle instance whose memory is size bytes, or nil.
func (rt *runtime) takeIdle(size uint32) *instance {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	for i := len(rt.idle) - 1; i >= 0; i-- {
		if in := rt.idle[i]; in.mod.Memory().Size() == size {
			rt.idle = append(rt.idle[:i], rt.idle[i+1:]...)
			return in
		}
	}
	return nil
}

// park keeps in for reuse, or closes it when the runtime has enough idle
// instances or is closed.
func (rt *runtime) park(in *instance) {
	rt.mu.Lock()
	if !rt.closed && len(rt.idle) < maxIdle() {
		rt.idle = append(rt.idle, in)
		rt.mu.Unlock()
		return
	}
	rt.mu.Unlock()
	in.mod.Close(context.Background())
}

// reusable reports whether the VM's instance may serve another restore:
// it closed cleanly (no trap, stop or out-of-memory, nothing running) and
// its memory is still its base's size, so a restore overwrites all of it.
func (vm *VM) reusable() bool {
	return vm.dead == nil && vm.inst != nil && vm.base != nil && !vm.abandoned.Load() &&
		vm.stop.Load() == stopNone && !vm.oom.Load() && vm.mem.Size() == uint32(len(vm.base.mem))
}
