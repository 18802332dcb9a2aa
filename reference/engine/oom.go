package engine

import (
	"bytes"
	"context"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// oomFunction is where QuickJS reports running out of memory: its
// out-of-memory path (JS_ThrowOutOfMemory, inlined into its callers by the
// build) calls JS_ThrowInternalError with the format "out of memory". Every
// allocation failure inside a context gets here, including the ones where the
// error object itself cannot be allocated (QuickJS then throws null) and the
// ones raised while a stack-trace hook runs. Guest code can catch the
// exception, but not this call (CM-LIM-02). Guest code cannot reach the
// function with that format: `new InternalError(...)` does not call it.
const oomFunction = "JS_ThrowInternalError"

var oomFormat = []byte("out of memory\x00")

type vmKey struct{}

// oomListeners attaches a listener to oomFunction only, so no other function
// pays for instrumentation.
type oomListeners struct{}

func (oomListeners) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	if def.Name() == oomFunction {
		return oomListener{}
	}
	return nil
}

type oomListener struct{}

func (oomListener) Before(ctx context.Context, mod api.Module, _ api.FunctionDefinition, params []uint64, _ experimental.StackIterator) {
	vm, ok := ctx.Value(vmKey{}).(*VM)
	if !ok || len(params) < 2 {
		return
	}
	if b, ok := mod.Memory().Read(uint32(params[1]), uint32(len(oomFormat))); ok && bytes.Equal(b, oomFormat) {
		vm.oom.Store(true)
	}
}

func (oomListener) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}

func (oomListener) Abort(context.Context, api.Module, api.FunctionDefinition, error) {}

// withOOMListener is the context CompileModule needs for the listener.
func withOOMListener(ctx context.Context) context.Context {
	return experimental.WithFunctionListenerFactory(ctx, oomListeners{})
}

// OutOfMemory reports whether QuickJS ran out of memory in this VM at any
// point, whatever the guest did with the exception. Snapshots do not carry
// it: a restored VM starts clear.
func (vm *VM) OutOfMemory() bool { return vm.oom.Load() }
