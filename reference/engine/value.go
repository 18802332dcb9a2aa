package engine

import (
	"context"
	"errors"
	"fmt"
)

// Value is a JavaScript value the host holds: a quickjs-wasi handle (a
// JSValue* in the VM's linear memory) that keeps its value alive. It lives in
// linear memory, so it stays valid in every VM restored from a snapshot or
// template taken while it was held. The host uses it to keep functions guest
// code cannot reach (the bridge: no global names them).
type Value uint32

// PromiseState is JS_PromiseState's result.
type PromiseState int32

// Promise states; NotAPromise for any other value.
const (
	PromisePending   PromiseState = 0
	PromiseFulfilled PromiseState = 1
	PromiseRejected  PromiseState = 2
	NotAPromise      PromiseState = -1
)

// Global returns the global object's property name (a getter is not run by
// the guest's hand: the host asks before any guest code exists).
func (vm *VM) Global(ctx context.Context, name string) (Value, error) {
	g, err := vm.call(ctx, "qjs_get_global")
	if err != nil {
		return 0, err
	}
	defer vm.Free(ctx, Value(g[0]))
	return vm.Get(ctx, Value(g[0]), name)
}

// Get returns obj[name].
func (vm *VM) Get(ctx context.Context, obj Value, name string) (Value, error) {
	p, err := vm.cstring(ctx, name)
	if err != nil {
		return 0, err
	}
	defer vm.invoke(ctx, vm.fn.free, uint64(p))
	r, err := vm.guest(ctx, vm.inst.export("qjs_get_prop_string"), uint64(obj), uint64(p))
	if err != nil {
		return 0, err
	}
	return vm.checked(ctx, r[0])
}

// Call calls fn with string arguments (fn itself is `this`) and returns the
// result, which the caller must Free or Take. It may run guest code: it runs
// under ctx's deadline like Eval. An exception is *Exception or a Trap.
func (vm *VM) Call(ctx context.Context, fn Value, args ...string) (Value, error) {
	var argv uint32
	hs := make([]uint64, 0, len(args))
	defer func() {
		for _, h := range hs {
			vm.invoke(ctx, vm.fn.freeValue, h)
		}
		if argv != 0 {
			vm.invoke(ctx, vm.fn.free, uint64(argv))
		}
	}()
	for _, a := range args {
		h, err := vm.newString(ctx, a)
		if err != nil {
			return 0, err
		}
		hs = append(hs, h)
	}
	if len(hs) > 0 {
		var err error
		if argv, err = vm.malloc(ctx, uint32(4*len(hs))); err != nil {
			return 0, err
		}
		for i, h := range hs {
			if !vm.mem.WriteUint32Le(argv+uint32(4*i), uint32(h)) {
				return 0, vm.kill(errors.New("memory write out of range"))
			}
		}
	}
	r, err := vm.guest(ctx, vm.inst.export("qjs_call"), uint64(fn), uint64(fn), uint64(len(hs)), uint64(argv))
	if err != nil {
		return 0, err
	}
	return vm.checked(ctx, r[0])
}

// CallString is Call whose result is converted to a string and freed.
func (vm *VM) CallString(ctx context.Context, fn Value, args ...string) (string, error) {
	v, err := vm.Call(ctx, fn, args...)
	if err != nil {
		return "", err
	}
	return vm.toString(ctx, uint64(v))
}

// Free releases a held value. A zero Value is ignored.
func (vm *VM) Free(ctx context.Context, v Value) {
	if v != 0 && vm.dead == nil {
		vm.invoke(ctx, vm.fn.freeValue, uint64(v))
	}
}

// PromiseStateOf reports the state of the promise v (NotAPromise for any
// other value). It runs no guest code.
func (vm *VM) PromiseStateOf(ctx context.Context, v Value) (PromiseState, error) {
	r, err := vm.call(ctx, "qjs_promise_state", uint64(v))
	if err != nil {
		return NotAPromise, err
	}
	return PromiseState(int32(r[0])), nil
}

// RunJob executes one pending promise job. ran is false when none was
// pending. A job that throws a catchable exception counts as run (its
// exception is dropped, as in RunJobs).
func (vm *VM) RunJob(ctx context.Context) (ran bool, err error) {
	r, err := vm.guest(ctx, vm.fn.executePendingJob)
	if err != nil {
		return false, err
	}
	switch v := int32(r[0]); {
	case v == 0:
		return false, nil
	case v < 0:
		var ex *Exception
		if err := vm.pendingException(ctx); !errors.As(err, &ex) {
			return true, err
		}
	}
	return true, nil
}

// checked turns an exception handle into the pending exception's error.
func (vm *VM) checked(ctx context.Context, h uint64) (Value, error) {
	if ex, err := vm.invoke(ctx, vm.fn.isException, h); err != nil {
		return 0, err
	} else if ex[0] != 0 {
		vm.invoke(ctx, vm.fn.freeValue, h)
		return 0, vm.pendingException(ctx)
	}
	return Value(h), nil
}

func (vm *VM) cstring(ctx context.Context, s string) (uint32, error) {
	p, err := vm.malloc(ctx, uint32(len(s))+1)
	if err != nil {
		return 0, err
	}
	if !vm.mem.Write(p, append([]byte(s), 0)) {
		return 0, vm.kill(errors.New("memory write out of range"))
	}
	return p, nil
}

func (vm *VM) newString(ctx context.Context, s string) (uint64, error) {
	p, err := vm.cstring(ctx, s)
	if err != nil {
		return 0, err
	}
	defer vm.invoke(ctx, vm.fn.free, uint64(p))
	r, err := vm.call(ctx, "qjs_new_string", uint64(p), uint64(len(s)))
	if err != nil {
		return 0, err
	}
	v, err := vm.checked(ctx, r[0])
	if err != nil {
		if vm.oom.Load() {
			return 0, vm.kill(fmt.Errorf("%w: creating a string argument", ErrOutOfMemory))
		}
		return 0, err
	}
	return uint64(v), nil
}
