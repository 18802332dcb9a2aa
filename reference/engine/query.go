package engine

import (
	"context"

	"github.com/tetratelabs/wazero/api"
)

// QueryName is the name of the VM's synchronous query host function: called
// with a string, it returns the string the VM's query handler answers, inside
// the guest's call, or undefined when there is no handler or it refuses. The
// prelude uses it to read the run's catalog from the host instead of holding
// it in guest memory (issue 28 N3: VMs and snapshots do not grow with the
// catalog). Like the sink, it survives snapshots: it is named by its data.
const QueryName = "__codemodeQuery"

// DefineQuery makes the global QueryName the query function (the prelude
// captures it and deletes the global before any guest code runs).
func (vm *VM) DefineQuery(ctx context.Context) error { return vm.defineHostFunction(ctx, QueryName) }

// SetQuery sets the VM's query handler (nil: every query answers undefined).
// f runs on the goroutine of the wasm call, while the guest waits: it must
// not call into the VM, and it must be quick (it holds the guest's time
// slice). ok false answers undefined.
func (vm *VM) SetQuery(f func(q string) (answer string, ok bool)) {
	if f == nil {
		vm.query.Store(nil)
		return
	}
	vm.query.Store(&f)
}

// hostQuery is host_call for QueryName: it returns the handle of a new
// string value with the handler's answer, or 0 (the caller answers
// undefined).
func hostQuery(ctx context.Context, m api.Module, argc, argv uint32) uint32 {
	vm := vmOf(ctx)
	if vm == nil {
		return 0
	}
	f := vm.query.Load()
	if f == nil {
		return 0
	}
	q, ok := hostArg(ctx, m, vm, argc, argv)
	if !ok {
		return 0
	}
	answer, ok := (*f)(q)
	if !ok {
		return 0
	}
	r, err := vm.fn.malloc.Call(ctx, uint64(len(answer)+1))
	if err != nil || uint32(r[0]) == 0 {
		return 0
	}
	p := uint32(r[0])
	defer vm.fn.free.Call(ctx, uint64(p))
	if !m.Memory().Write(p, append([]byte(answer), 0)) {
		return 0
	}
	h, err := vm.inst.export("qjs_new_string").Call(ctx, uint64(p), uint64(len(answer)))
	if err != nil {
		return 0
	}
	if ex, err := vm.fn.isException.Call(ctx, h[0]); err != nil || ex[0] != 0 {
		vm.fn.freeValue.Call(ctx, h[0])
		return 0
	}
	return uint32(h[0])
}

// isHostName reports whether the host function name at name..nameLen is n.
func isHostName(m api.Module, name, nameLen uint32, n string) bool {
	b, ok := m.Memory().Read(name, nameLen)
	return ok && string(b) == n
}
