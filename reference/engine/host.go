package engine

import (
	"context"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// vmKey carries the *VM a wasm call runs for, so host imports find it.
type vmKey struct{}

func vmOf(ctx context.Context) *VM {
	vm, _ := ctx.Value(vmKey{}).(*VM)
	return vm
}

// instantiateHost provides quickjs-wasi's env imports. Guest code gets no host
// functions (the bridge is the prelude's queue), no modules and UTC:
//   - host_interrupt: QuickJS's interrupt handler, polled every few thousand
//     bytecodes and by the regexp engine; 1 stops the guest with an
//     uncatchable "interrupted" error once the VM's stop flag is set.
//   - host_call: the two host functions. The sink (sink.go) hands its
//     string argument to the VM's sink; it returns true when a sink took
//     it, else undefined. The query (query.go) returns the VM's query
//     handler's string answer, else undefined.
//   - host_promise_rejection: the tracker is never enabled; frees its values.
//   - host_module_normalize, host_module_load: NULL, so every import fails.
//   - host_get_timezone_offset: 0 (UTC, as WASI without a tz database).
func instantiateHost(ctx context.Context, r wazero.Runtime) error {
	_, err := r.NewHostModuleBuilder("env").
		NewFunctionBuilder().WithFunc(func(ctx context.Context) int32 {
		yieldSlot(ctx) // time slicing (slots.go)
		if vm := vmOf(ctx); vm != nil && vm.stop.Load() != 0 {
			return 1
		}
		return 0
	}).Export("host_interrupt").
		NewFunctionBuilder().WithFunc(func(ctx context.Context, m api.Module, name, nameLen, _, argc, argv int32) int32 {
		if isHostName(m, uint32(name), uint32(nameLen), QueryName) { // query.go
			if h := hostQuery(ctx, m, uint32(argc), uint32(argv)); h != 0 {
				return int32(h)
			}
		}
		result := "qjs_get_undefined"
		if hostCall(ctx, m, uint32(name), uint32(nameLen), uint32(argc), uint32(argv)) { // sink.go
			result = "qjs_get_true"
		}
		u, err := m.ExportedFunction(result).Call(ctx)
		if err != nil {
			return 0
		}
		d, err := m.ExportedFunction("qjs_dup_value").Call(ctx, u[0])
		if err != nil {
			return 0
		}
		return int32(d[0])
	}).Export("host_call").
		NewFunctionBuilder().WithFunc(func(ctx context.Context, m api.Module, promise, reason, _ int32) {
		free := m.ExportedFunction("qjs_free_value")
		free.Call(ctx, uint64(uint32(promise)))
		free.Call(ctx, uint64(uint32(reason)))
	}).Export("host_promise_rejection").
		NewFunctionBuilder().WithFunc(func(int32, int32) int32 { return 0 }).Export("host_module_normalize").
		NewFunctionBuilder().WithFunc(func(int32, int32) int32 { return 0 }).Export("host_module_load").
		NewFunctionBuilder().WithFunc(func(int32, int32) int32 { return 0 }).Export("host_get_timezone_offset").
		Instantiate(ctx)
	return err
}
