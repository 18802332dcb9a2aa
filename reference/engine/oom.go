package engine

import (
	"bytes"
	"context"
	"slices"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// QuickJS reports running out of memory through JS_ThrowOutOfMemory, which
// throws an InternalError "out of memory" through JS_ThrowInternalError. Every
// allocation failure inside a context gets to one of them, including the ones
// where the error object itself cannot be allocated. Guest code may catch the
// exception, but not this call (CM-LIM-02); `new InternalError(...)` reaches
// neither.
const (
	oomFunction      = "JS_ThrowOutOfMemory"
	internalFunction = "JS_ThrowInternalError"
)

var oomFormat = []byte("out of memory\x00")

// oomListeners attaches a listener to those two functions and to
// pollFunctions only (and to bulkPolls when bulk is set), so no other
// function pays for instrumentation.
type oomListeners struct{ bulk bool }

func (l oomListeners) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	names := def.ExportNames()
	switch {
	case l.bulk && isBulkPoll(def):
		return stopListener{}
	case slices.ContainsFunc(names, func(n string) bool { return slices.Contains(pollFunctions, n) }):
		return stopListener{}
	case slices.Contains(names, oomFunction) || def.Name() == oomFunction:
		return oomListener{always: true}
	case slices.Contains(names, internalFunction) || def.Name() == internalFunction:
		return oomListener{}
	}
	return nil
}

type oomListener struct{ always bool }

func (l oomListener) Before(ctx context.Context, mod api.Module, _ api.FunctionDefinition, params []uint64, _ experimental.StackIterator) {
	vm := vmOf(ctx)
	if vm == nil {
		return
	}
	if vm.stop.Load() != stopNone {
		// The interrupt handler's own error goes through
		// JS_ThrowInternalError("interrupted"): unwind here, before QuickJS
		// runs any JavaScript for it (an Error.prepareStackTrace hook that
		// runs then loses the error's uncatchable mark, and a guest catch in
		// a loop would swallow every later interrupt).
		panic(errStopped{})
	}
	if l.always {
		vm.oom.Store(true)
		return
	}
	if len(params) < 2 {
		return
	}
	if b, ok := mod.Memory().Read(uint32(params[1]), uint32(len(oomFormat))); ok && bytes.Equal(b, oomFormat) {
		vm.oom.Store(true)
	}
}

func (oomListener) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}

func (oomListener) Abort(context.Context, api.Module, api.FunctionDefinition, error) {}

// pollFunctions are called once per element by QuickJS's generic native
// loops over a sparse array or an array-like object, which never poll the
// interrupt handler: JS_GetPropertyInt64 by join, includes, indexOf and
// Array.from, JS_HasProperty by sort and lastIndexOf (counted with a listener
// on every export: 1e5 calls for 1e5 elements). Bytecode on dense arrays and
// object creation do not call them (JS_FreeAtom, also per element there, is
// also called once per object created and cost push-1e6 about 1.4×). A
// stopped VM's call into one of them unwinds its whole wasm call.
//
// JS_Throw (every guest throw) is one too: a loop that throws and catches
// must not outlive its deadline whatever runs while an error is built.
var pollFunctions = []string{"JS_GetPropertyInt64", "JS_HasProperty", "JS_Throw"}

// bulkPolls are internal (unexported, unnamed: the module has no name
// section) functions of the wasm pinned by WasmSHA256, by function index,
// that QuickJS's native bulk loops call once per piece and that never poll
// the interrupt handler: without them such a loop outlived its deadline by
// seconds, and while it ran as native code every Go stop-the-world (each
// GC) waited for it, freezing the whole process (ENGINE.md, "Native bulk
// loops"). Found by counting calls per function during each loop; the
// index and signature were read from the disassembly. A listener on a
// function only costs when it is called, and only unwinds a stopped VM, so
// a wrong index costs speed, never a result.
//
// They are attached only with WithoutBigIntCap (the engine as it was before
// the loop polls of looppoll.go, which reach the same loops and every other
// one without a Go call per piece) and for BenchmarkPolls.
var bulkPolls = map[uint32]struct {
	what   string
	params int // the function's parameter count, checked before attaching
}{
	267:  {"string_buffer_concat: String.prototype.repeat, padStart/padEnd and join, once per piece (8-bit and wide)", 4},
	1221: {"string_buffer_fill: once per single-character repeat or pad (a bytecode loop of large fills polls the handler only every 10000 iterations)", 3},
	455:  {"exchange_int128s: rqsort's block swap, once per partition (Array.prototype.sort, TypedArray sorts)", 3},
	457:  {"exchange_int64s: as above, 8-byte elements", 3},
	459:  {"exchange_int32s: as above, 4-byte elements", 3},
	461:  {"exchange_int16s: as above, 2-byte elements", 3},
	463:  {"exchange_bytes: as above, 1-byte elements", 3},
	294:  {"js_bigint_new: once or more per BigInt operation whose result is not a short BigInt (each quadratic one is a single native call, bounded by BigIntMaxBits; a bytecode loop of them polls the handler only every 10000 iterations)", 2},
}

// isBulkPoll reports whether def is one of bulkPolls.
func isBulkPoll(def api.FunctionDefinition) bool {
	p, ok := bulkPolls[def.Index()]
	return ok && def.GoFunction() == nil && len(def.ParamTypes()) == p.params
}

// errStopped is the panic value that unwinds a stopped VM's wasm call.
type errStopped struct{}

// stopListener unwinds the wasm call of a VM whose stop flag is set.
type stopListener struct{}

func (stopListener) Before(ctx context.Context, _ api.Module, _ api.FunctionDefinition, _ []uint64, _ experimental.StackIterator) {
	yieldSlot(ctx) // time slicing (slots.go)
	if vm := vmOf(ctx); vm != nil && vm.stop.Load() != stopNone {
		panic(errStopped{})
	}
}

func (stopListener) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}

func (stopListener) Abort(context.Context, api.Module, api.FunctionDefinition, error) {}

// withOOMListener is the context CompileModule needs for the listener.
func withOOMListener(ctx context.Context, l oomListeners) context.Context {
	return experimental.WithFunctionListenerFactory(ctx, l)
}
