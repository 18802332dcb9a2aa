package engine

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// Limits bounds one VM.
type Limits struct {
	// MemoryBytes is the QuickJS heap limit (JS_SetMemoryLimit), in bytes.
	MemoryBytes int64
	// StackBytes is QuickJS's own stack limit (JS_SetMaxStackSize), in bytes;
	// 0 means 256 KiB. Deeper recursion throws a catchable RangeError.
	StackBytes int64
}

// VM is one QuickJS runtime+context in its own wasm instance. A VM is not safe
// for concurrent use.
type VM struct {
	mod   api.Module
	mem   api.Memory
	fn    funcs
	rt    uint32 // JSRuntime*
	jsctx uint32 // JSContext*
	pctx  uint32 // scratch JSContext** for JS_ExecutePendingJob
	plen  uint32 // scratch size_t* for JS_ToCStringLen2
	pages uint32 // the memory cap this VM's runtime was compiled for
	dead  error
	eng   *Engine
	oom   atomic.Bool // set by the JS_ThrowOutOfMemory listener (oom.go)
}

type funcs struct {
	malloc, free, eval, getException, toCString, freeCString, freeValue, executePendingJob api.Function
}

// Tags of QuickJS-NG NaN-boxed JSValues on wasm32 (quickjs.h).
const tagException = 6

// Exception is a JavaScript exception that escaped a host-level evaluation.
type Exception struct{ Message string }

func (e *Exception) Error() string { return e.Message }

// Trap is any failure of the wasm instance itself (out-of-bounds access from
// deep recursion, an exhausted memory cap, a closed instance). After a Trap
// the VM is unusable and must be closed.
type Trap struct{ Err error }

func (t *Trap) Error() string { return "engine trap: " + t.Err.Error() }
func (t *Trap) Unwrap() error { return t.Err }

// ErrDeadline is wrapped by a Trap when the call's context deadline closed the
// instance (the wall-clock limit).
var ErrDeadline = errors.New("deadline exceeded")

// ErrCanceled is wrapped by a Trap when the call's context was canceled.
var ErrCanceled = errors.New("canceled")

// NewVM instantiates a fresh module and creates a QuickJS runtime and context
// bound by lim.
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
	vm.pages = pages
	if vm.rt, err = vm.call1(ctx, "JS_NewRuntime"); err != nil || vm.rt == 0 {
		vm.Close(ctx)
		return nil, fmt.Errorf("JS_NewRuntime failed: %v", err)
	}
	if _, err = vm.call(ctx, "JS_SetMemoryLimit", uint64(vm.rt), uint64(uint32(lim.MemoryBytes))); err != nil {
		vm.Close(ctx)
		return nil, err
	}
	stack := lim.StackBytes
	if stack <= 0 {
		stack = 256 << 10
	}
	if _, err = vm.call(ctx, "JS_SetMaxStackSize", uint64(vm.rt), uint64(stack)); err != nil {
		vm.Close(ctx)
		return nil, err
	}
	if vm.jsctx, err = vm.call1(ctx, "JS_NewContext", uint64(vm.rt)); err != nil || vm.jsctx == 0 {
		vm.Close(ctx)
		return nil, fmt.Errorf("JS_NewContext failed: %v", err)
	}
	if vm.pctx, err = vm.malloc(ctx, 8); err != nil {
		vm.Close(ctx)
		return nil, err
	}
	vm.plen = vm.pctx + 4
	return vm, nil
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
	mod, err := rt.r.InstantiateModule(ctx, rt.cm, cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: instantiate: %v", ErrUnavailable, err)
	}
	e.live.Add(1)
	vm := &VM{mod: mod, mem: mod.Memory(), eng: e}
	get := func(name string) api.Function { return mod.ExportedFunction(name) }
	vm.fn = funcs{
		malloc: get("malloc"), free: get("free"), eval: get("JS_Eval"),
		getException: get("JS_GetException"), toCString: get("JS_ToCStringLen2"),
		freeCString: get("JS_FreeCString"), freeValue: get("JS_FreeValue"),
		executePendingJob: get("JS_ExecutePendingJob"),
	}
	return vm, nil
}

func (vm *VM) call(ctx context.Context, name string, args ...uint64) ([]uint64, error) {
	f := vm.mod.ExportedFunction(name)
	if f == nil {
		return nil, fmt.Errorf("%w: missing export %s", ErrUnavailable, name)
	}
	return vm.invoke(ctx, f, args...)
}

func (vm *VM) call1(ctx context.Context, name string, args ...uint64) (uint32, error) {
	r, err := vm.call(ctx, name, args...)
	if err != nil {
		return 0, err
	}
	return uint32(r[0]), nil
}

// invoke calls f and turns every wasm-level failure into a Trap.
func (vm *VM) invoke(ctx context.Context, f api.Function, args ...uint64) ([]uint64, error) {
	if vm.dead != nil {
		return nil, vm.dead
	}
	res, err := f.Call(context.WithValue(ctx, vmKey{}, vm), args...)
	if err != nil {
		var exit *sys.ExitError
		switch {
		case errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeDeadlineExceeded:
			err = ErrDeadline
		case errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeContextCanceled:
			err = ErrCanceled
		}
		vm.dead = &Trap{Err: err}
		return nil, vm.dead
	}
	return res, nil
}

func (vm *VM) malloc(ctx context.Context, n uint32) (uint32, error) {
	r, err := vm.invoke(ctx, vm.fn.malloc, uint64(n))
	if err != nil {
		return 0, err
	}
	if uint32(r[0]) == 0 {
		return 0, &Trap{Err: errors.New("malloc failed: out of memory")}
	}
	return uint32(r[0]), nil
}

// Eval evaluates src as a global script and returns its completion value
// converted to a string. A JavaScript exception is returned as *Exception; a
// wasm failure as *Trap.
func (vm *VM) Eval(ctx context.Context, src, filename string) (string, error) {
	n := uint32(len(src))
	buf, err := vm.malloc(ctx, n+1+uint32(len(filename))+1)
	if err != nil {
		return "", err
	}
	defer vm.invoke(ctx, vm.fn.free, uint64(buf))
	fname := buf + n + 1
	if !vm.mem.Write(buf, append([]byte(src), 0)) || !vm.mem.Write(fname, append([]byte(filename), 0)) {
		return "", &Trap{Err: errors.New("memory write out of range")}
	}
	r, err := vm.invoke(ctx, vm.fn.eval, uint64(vm.jsctx), uint64(buf), uint64(n), uint64(fname), 0)
	if err != nil {
		return "", err
	}
	val := r[0]
	if int32(val>>32) == tagException {
		ex, err := vm.invoke(ctx, vm.fn.getException, uint64(vm.jsctx))
		if err != nil {
			return "", err
		}
		msg, err := vm.toString(ctx, ex[0])
		if err != nil {
			return "", err
		}
		return "", &Exception{Message: msg}
	}
	return vm.toString(ctx, val)
}

// toString converts and frees a JSValue.
func (vm *VM) toString(ctx context.Context, val uint64) (string, error) {
	defer vm.invoke(ctx, vm.fn.freeValue, uint64(vm.jsctx), val)
	r, err := vm.invoke(ctx, vm.fn.toCString, uint64(vm.jsctx), uint64(vm.plen), val, 0)
	if err != nil {
		return "", err
	}
	p := uint32(r[0])
	if p == 0 {
		return "", &Exception{Message: "value is not convertible to a string"}
	}
	defer vm.invoke(ctx, vm.fn.freeCString, uint64(vm.jsctx), uint64(p))
	lb, ok := vm.mem.Read(vm.plen, 4)
	if !ok {
		return "", &Trap{Err: errors.New("memory read out of range")}
	}
	l := binary.LittleEndian.Uint32(lb)
	b, ok := vm.mem.Read(p, l)
	if !ok {
		return "", &Trap{Err: errors.New("memory read out of range")}
	}
	return string(b), nil
}

// RunJobs executes pending promise jobs until none is left. It returns the
// number of jobs run.
func (vm *VM) RunJobs(ctx context.Context) (int, error) {
	n := 0
	for {
		r, err := vm.invoke(ctx, vm.fn.executePendingJob, uint64(vm.rt), uint64(vm.pctx))
		if err != nil {
			return n, err
		}
		switch int32(r[0]) {
		case 0:
			return n, nil
		case 1:
			n++
		default:
			// A job threw and the exception is pending on the context: clear it.
			// Guest-visible rejections are tracked by the prelude itself.
			if ex, err := vm.invoke(ctx, vm.fn.getException, uint64(vm.jsctx)); err == nil {
				vm.invoke(ctx, vm.fn.freeValue, uint64(vm.jsctx), ex[0])
			}
			n++
		}
	}
}

// MemoryBytes is the current size of the VM's linear memory in bytes.
func (vm *VM) MemoryBytes() int64 { return int64(vm.mem.Size()) }

// Close discards the instance. It is safe to call more than once.
func (vm *VM) Close(ctx context.Context) {
	if vm.mod != nil {
		vm.mod.Close(context.WithoutCancel(ctx))
		vm.mod = nil
		vm.eng.live.Add(-1)
	}
	if vm.dead == nil {
		vm.dead = &Trap{Err: errors.New("vm closed")}
	}
}
