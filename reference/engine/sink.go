package engine

import (
	"context"

	"github.com/tetratelabs/wazero/api"
)

// SinkName is the name of the one host function a VM can have: called with a
// string, it hands the string to the VM's sink at once, inside the guest's
// call. The prelude sends each output item through it as the guest writes
// it, so a cell that a deadline or out of memory ends keeps the output it
// wrote before (CM-EXEC-14): nothing waits in guest memory for a later poll.
const SinkName = "__codemodeSink"

// DefineSink makes the global SinkName the sink function (the prelude
// captures it and deletes the global before any guest code runs). It
// survives snapshots: the function is named by its data, not by a pointer.
func (vm *VM) DefineSink(ctx context.Context) error { return vm.defineHostFunction(ctx, SinkName) }

// defineHostFunction makes the global name a host function of one argument
// (host_call dispatches on the name: sink.go, query.go).
func (vm *VM) defineHostFunction(ctx context.Context, name string) error {
	p, err := vm.cstring(ctx, name)
	if err != nil {
		return err
	}
	defer vm.invoke(ctx, vm.fn.free, uint64(p))
	fn, err := vm.call(ctx, "qjs_new_host_function", uint64(p), uint64(len(name)), 1)
	if err != nil {
		return err
	}
	defer vm.invoke(ctx, vm.fn.freeValue, fn[0])
	g, err := vm.call(ctx, "qjs_get_global")
	if err != nil {
		return err
	}
	defer vm.invoke(ctx, vm.fn.freeValue, g[0])
	_, err = vm.call(ctx, "qjs_set_prop_string", g[0], uint64(p), fn[0])
	return err
}

// SetSink sets where the sink's strings go (nil: they are dropped). f runs
// on the goroutine of the wasm call, while the guest waits: it must not call
// into the VM.
func (vm *VM) SetSink(f func(string)) {
	if f == nil {
		vm.sink.Store(nil)
		return
	}
	vm.sink.Store(&f)
}

// hostCall is host_call: a call of the sink with its first argument. It
// reports whether a sink took the string (the prelude keeps the item for
// the poll otherwise).
func hostCall(ctx context.Context, m api.Module, name, nameLen, argc, argv uint32) bool {
	vm := vmOf(ctx)
	if vm == nil || argc < 1 {
		return false
	}
	f := vm.sink.Load()
	if f == nil {
		return false
	}
	if !isHostName(m, name, nameLen, SinkName) {
		return false
	}
	s, ok := hostArg(ctx, m, vm, argc, argv)
	if !ok {
		return false
	}
	(*f)(s)
	return true
}

// hostArg is the first argument of a host function call as a string
// (ToString), or false.
func hostArg(ctx context.Context, m api.Module, vm *VM, argc, argv uint32) (string, bool) {
	if argc < 1 {
		return "", false
	}
	h, ok := m.Memory().ReadUint32Le(argv)
	if !ok {
		return "", false
	}
	val, ok := m.Memory().ReadUint64Le(h)
	if !ok {
		return "", false
	}
	// JS_ToCStringLen2(ctx, &len, value, 0): the trampoline owns the value.
	r, err := vm.fn.toCString.Call(ctx, uint64(vm.jsctx), uint64(vm.scratch), val, 0)
	if err != nil || uint32(r[0]) == 0 {
		return "", false
	}
	defer vm.fn.freeCString.Call(ctx, uint64(vm.jsctx), r[0])
	l, ok := m.Memory().ReadUint32Le(vm.scratch)
	if !ok {
		return "", false
	}
	b, ok := m.Memory().Read(uint32(r[0]), l)
	if !ok {
		return "", false
	}
	return string(b), true
}
