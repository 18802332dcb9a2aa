package engine

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// Limits bounds one VM.
type Limits struct {
	// MemoryBytes is the QuickJS heap limit (JS_SetMemoryLimit), in bytes;
	// the wasm memory cap is PagesFor(MemoryBytes).
	MemoryBytes int64
}

// VM is one QuickJS runtime+context in its own wasm instance. A VM is not safe
// for concurrent use.
type VM struct {
	inst    *instance
	mod     api.Module
	mem     api.Memory
	fn      funcs
	jsctx   uint32 // JSContext*
	scratch uint32 // 8 bytes of wasm memory for out-parameters
	pages   uint32 // the memory cap this VM's runtime was compiled for
	limits  Limits
	base    *baseMemory // the template memory this VM was restored from, if any
	eng     *Engine

	dead      error
	stop      atomic.Int32                                // stopNone, stopDeadline, stopCanceled: read by host_interrupt
	abandoned atomic.Bool                                 // a wasm call is still running in the background
	oom       atomic.Bool                                 // set by the out-of-memory listener (oom.go)
	sink      atomic.Pointer[func(string)]                // SetSink: where the guest's sink calls go (sink.go)
	query     atomic.Pointer[func(string) (string, bool)] // SetQuery: who answers the guest's queries (query.go)

	// Run slots (slots.go), over the VM's life, in nanoseconds: the time it
	// waited for one and the time it held one (executed wasm); and whether
	// its deadline or cancellation came while it waited (issue 28 N12).
	slotWaited, slotHeld atomic.Int64
	stopWaiting          atomic.Bool
}

// SlotTimes is how long vm has waited for the process's run slots and how
// long it has held one (executed wasm: guest code, the prelude, natives),
// each summed over its life. A caller that knows when its call started
// tells the guest's share of a timeout from the wait's (issue 28 N12).
func (vm *VM) SlotTimes() (waited, held time.Duration) {
	return time.Duration(vm.slotWaited.Load()), time.Duration(vm.slotHeld.Load())
}

// StoppedWaiting reports whether vm's stop (its deadline or cancellation)
// came while it waited for a run slot, not while it executed.
func (vm *VM) StoppedWaiting() bool { return vm.stopWaiting.Load() }

// MaxStackBytes is QuickJS's stack limit (JS_SetMaxStackSize), in bytes of
// the wasm shadow stack, which is 1 MiB in this build and grows down from
// its top. QuickJS-NG checks it under WASI too, so unbounded recursion is a
// catchable RangeError (CM-EXEC-23) instead of a wasm trap when the shadow
// stack runs below address 0. The rest (256 KiB) is headroom for the native
// frames between two checks (measured: 14 recursion shapes, including
// JSON, the parser, Proxy traps and getters, all throw RangeError at 768
// KiB; without a limit every one of them traps).
const MaxStackBytes = 768 << 10

const (
	stopNone int32 = iota
	stopDeadline
	stopCanceled
)

type funcs struct {
	malloc, free, eval, isException, getException, isUncatchable, toCString, freeCString,
	freeValue, executePendingJob api.Function
}

// NewVM instantiates a fresh module and creates a QuickJS runtime and context
// bound by lim, with the interrupt handler installed.
func (e *Engine) NewVM(ctx context.Context, lim Limits) (*VM, error) {
	pages := PagesFor(lim.MemoryBytes)
	rt, err := e.runtime(ctx, pages)
	if err != nil {
		return nil, err
	}
	vm, err := e.instantiate(ctx, rt, "_initialize")
	if err != nil {
		return nil, err
	}
	vm.pages, vm.limits = pages, lim
	if r, err := vm.call(ctx, "qjs_init"); err != nil || int32(r[0]) != 0 {
		vm.Close(ctx)
		return nil, fmt.Errorf("%w: qjs_init failed: %v", ErrUnavailable, err)
	}
	if err := vm.setup(ctx); err != nil {
		vm.Close(ctx)
		return nil, err
	}
	return vm, nil
}

// setup applies the limits and the interrupt handler and allocates the
// scratch words. On a restored VM the runtime already has them in memory;
// applying them again is cheap and keeps one path.
func (vm *VM) setup(ctx context.Context) error {
	limit := vm.limits.MemoryBytes
	if limit <= 0 || limit > 1<<31 {
		limit = 1 << 31
	}
	if _, err := vm.call(ctx, "qjs_set_memory_limit", uint64(limit)); err != nil {
		return err
	}
	if _, err := vm.call(ctx, "qjs_set_interrupt_handler", 1); err != nil {
		return err
	}
	if _, err := vm.call(ctx, "qjs_set_max_stack_size", MaxStackBytes); err != nil {
		return err
	}
	r, err := vm.call(ctx, "qjs_get_context_ptr")
	if err != nil {
		return err
	}
	vm.jsctx = uint32(r[0])
	if vm.scratch == 0 {
		if vm.scratch, err = vm.malloc(ctx, 8); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) instantiate(ctx context.Context, rt *runtime, start ...string) (*VM, error) {
	cfg := wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions(start...).
		WithStdout(io.Discard).
		WithStderr(io.Discard).
		WithSysWalltime().
		WithSysNanotime().
		WithRandSource(rand.Reader)
	mod, err := rt.r.InstantiateModule(experimental.WithMemoryAllocator(ctx, memoryAllocator), rt.cm, cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: instantiate: %v", ErrUnavailable, err)
	}
	return e.vmOn(&instance{rt: rt, mod: mod, exports: map[string]api.Function{}}), nil
}

// vmOn makes a VM on in (fresh or reused) and counts it as live.
func (e *Engine) vmOn(in *instance) *VM {
	e.live.Add(1)
	vm := &VM{inst: in, mod: in.mod, mem: in.mod.Memory(), eng: e}
	get := in.export
	vm.fn = funcs{
		malloc: get("wasm_malloc"), free: get("wasm_free"), eval: get("qjs_eval"),
		isException: get("qjs_is_exception"), getException: get("qjs_get_exception"),
		isUncatchable: get("qjs_is_uncatchable_error"),
		toCString:     get("JS_ToCStringLen2"), freeCString: get("JS_FreeCString"),
		freeValue: get("qjs_free_value"), executePendingJob: get("qjs_execute_pending_job"),
	}
	return vm
}

// call runs an export that never runs guest code.
func (vm *VM) call(ctx context.Context, name string, args ...uint64) ([]uint64, error) {
	f := vm.inst.export(name)
	if f == nil {
		return nil, fmt.Errorf("%w: missing export %s", ErrUnavailable, name)
	}
	return vm.invoke(ctx, f, args...)
}

// invoke calls f and turns every wasm-level failure into a Trap.
func (vm *VM) invoke(ctx context.Context, f api.Function, args ...uint64) ([]uint64, error) {
	if vm.dead != nil {
		return nil, vm.dead
	}
	res, err := f.Call(context.WithValue(ctx, vmKey{}, vm), args...)
	if err != nil {
		if err := vm.stopped(); err != nil {
			return nil, err
		}
		return nil, vm.kill(vm.trapCause(err))
	}
	return res, nil
}

// trapCause classifies a wasm error: the memory cap is out of memory.
func (vm *VM) trapCause(err error) error {
	if vm.oom.Load() || vm.mem.Size() >= (vm.pages-16)*PageSize {
		return fmt.Errorf("%w: %v", ErrOutOfMemory, err)
	}
	return err
}

// kill marks the VM unusable with a Trap of cause.
func (vm *VM) kill(cause error) error {
	if vm.dead == nil {
		vm.dead = &Trap{Err: cause}
	}
	return vm.dead
}

func (vm *VM) malloc(ctx context.Context, n uint32) (uint32, error) {
	r, err := vm.invoke(ctx, vm.fn.malloc, uint64(n))
	if err != nil {
		return 0, err
	}
	if uint32(r[0]) == 0 {
		return 0, vm.kill(fmt.Errorf("%w: malloc(%d) failed", ErrOutOfMemory, n))
	}
	return uint32(r[0]), nil
}

// Eval evaluates src as a global script and returns its completion value
// converted to a string. A JavaScript exception is returned as *Exception; an
// interrupt, an uncatchable error or a wasm failure as *Trap.
func (vm *VM) Eval(ctx context.Context, src, filename string) (string, error) {
	n := uint32(len(src))
	buf, err := vm.malloc(ctx, n+1+uint32(len(filename))+1)
	if err != nil {
		return "", err
	}
	fname := buf + n + 1
	if !vm.mem.Write(buf, append([]byte(src), 0)) || !vm.mem.Write(fname, append([]byte(filename), 0)) {
		return "", vm.kill(errors.New("memory write out of range"))
	}
	r, err := vm.guest(ctx, vm.fn.eval, uint64(buf), uint64(n), uint64(fname), 0)
	if err != nil {
		return "", err
	}
	if _, err := vm.invoke(ctx, vm.fn.free, uint64(buf)); err != nil {
		return "", err
	}
	h := r[0]
	if ex, err := vm.invoke(ctx, vm.fn.isException, h); err != nil {
		return "", err
	} else if ex[0] != 0 {
		vm.invoke(ctx, vm.fn.freeValue, h)
		return "", vm.pendingException(ctx)
	}
	return vm.toString(ctx, h)
}

// pendingException takes the context's pending exception: a Trap when it is
// an interrupt or uncatchable, else an *Exception with its string form.
func (vm *VM) pendingException(ctx context.Context) error {
	if err := vm.stopped(); err != nil {
		return err
	}
	r, err := vm.invoke(ctx, vm.fn.getException)
	if err != nil {
		return err
	}
	h := r[0]
	unc, err := vm.invoke(ctx, vm.fn.isUncatchable, h)
	if err != nil {
		return err
	}
	msg, err := vm.toString(ctx, h)
	if err != nil {
		return err
	}
	if unc[0] != 0 || vm.oom.Load() {
		if vm.oom.Load() {
			return vm.kill(fmt.Errorf("%w: %s", ErrOutOfMemory, msg))
		}
		return vm.kill(&Uncatchable{Message: msg})
	}
	return &Exception{Message: msg}
}

// stopped is the Trap of an interrupted VM, or nil.
func (vm *VM) stopped() error {
	switch vm.stop.Load() {
	case stopDeadline:
		return vm.kill(ErrDeadline)
	case stopCanceled:
		return vm.kill(ErrCanceled)
	}
	return nil
}

// toString converts and frees a value handle (the JSValue* quickjs-wasi's
// qjs_* functions return).
func (vm *VM) toString(ctx context.Context, h uint64) (string, error) {
	defer vm.invoke(ctx, vm.fn.freeValue, h)
	val, ok := vm.mem.ReadUint64Le(uint32(h))
	if !ok {
		return "", vm.kill(errors.New("memory read out of range"))
	}
	r, err := vm.invoke(ctx, vm.fn.toCString, uint64(vm.jsctx), uint64(vm.scratch), val, 0)
	if err != nil {
		return "", err
	}
	p := uint32(r[0])
	if p == 0 {
		// The conversion threw (a guest toString, or out of memory).
		if err := vm.stopped(); err != nil {
			return "", err
		}
		if ex, err := vm.invoke(ctx, vm.fn.getException); err == nil {
			vm.invoke(ctx, vm.fn.freeValue, ex[0])
		}
		if vm.oom.Load() {
			return "", vm.kill(fmt.Errorf("%w: converting a value to a string", ErrOutOfMemory))
		}
		return "", &Exception{Message: "value is not convertible to a string"}
	}
	defer vm.invoke(ctx, vm.fn.freeCString, uint64(vm.jsctx), uint64(p))
	l, ok := vm.mem.ReadUint32Le(vm.scratch)
	if !ok {
		return "", vm.kill(errors.New("memory read out of range"))
	}
	b, ok := vm.mem.Read(p, l)
	if !ok {
		return "", vm.kill(errors.New("memory read out of range"))
	}
	return string(b), nil
}

// RunJobs executes pending promise jobs until none is left. It returns the
// number of jobs run. A job that throws a catchable exception is counted and
// its exception dropped (guest-visible rejections are tracked by the prelude);
// an interrupt or uncatchable error is a Trap.
func (vm *VM) RunJobs(ctx context.Context) (int, error) {
	n := 0
	for {
		r, err := vm.guest(ctx, vm.fn.executePendingJob)
		if err != nil {
			return n, err
		}
		switch v := int32(r[0]); {
		case v == 0:
			return n, nil
		case v > 0:
			n++
		default:
			n++
			var ex *Exception
			if err := vm.pendingException(ctx); !errors.As(err, &ex) {
				return n, err
			}
		}
	}
}

// MemoryBytes is the current size of the VM's linear memory in bytes.
func (vm *VM) MemoryBytes() int64 { return int64(vm.mem.Size()) }

// OutOfMemory reports whether QuickJS ran out of memory in this VM at any
// point, whatever the guest did with the exception. Snapshots do not carry
// it: a restored VM starts clear.
func (vm *VM) OutOfMemory() bool { return vm.oom.Load() }

// Close discards the VM. It is safe to call more than once. Its instance is
// kept for reuse when that is safe (instances.go), else closed; an abandoned
// VM's instance is closed when its background call returns.
func (vm *VM) Close(ctx context.Context) {
	if vm.mod != nil && !vm.abandoned.Load() {
		if vm.reusable() {
			vm.inst.rt.park(vm.inst)
		} else {
			vm.mod.Close(context.WithoutCancel(ctx))
		}
		vm.eng.live.Add(-1)
	}
	vm.mod = nil
	vm.kill(ErrClosed)
}
