// Package engine runs QuickJS-NG, compiled to a WASI reactor, on wazero.
//
// One Engine per process compiles the module once per memory cap and hands
// out VMs: one fresh instance per cell (CM-EXEC-12). A VM is driven only
// through JS_Eval and JS_ExecutePendingJob: the reactor has no host-function
// imports, so the bridge is a guest-side queue drained by the host (see
// ../../../shared/DESIGN.md "Engine facts").
//
// Every call into a VM takes a context; with WithCloseOnContextDone the
// instance is closed when that context ends, which is what bounds wall-clock
// time independently of guest cooperation (CM-LIM-01).
package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	quickjswasi "github.com/aperturerobotics/go-quickjs-wasi-reactor"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// PageSize is the wasm page size in bytes.
const PageSize = 65536

// Engine owns the compiled QuickJS module. It is safe for concurrent use.
type Engine struct {
	cache wazero.CompilationCache

	mu       sync.Mutex
	runtimes map[uint32]*runtime // by memory page cap
	closed   bool

	live atomic.Int64
}

// LiveVMs is the number of VM instances currently open on this engine.
func (e *Engine) LiveVMs() int { return int(e.live.Load()) }

type runtime struct {
	r  wazero.Runtime
	cm wazero.CompiledModule
}

// ErrUnavailable wraps any failure to load the QuickJS module (CM-CFG-07).
var ErrUnavailable = errors.New("quickjs-wasi runtime unavailable")

// New returns an Engine. It compiles the module once to prove it loads; the
// error wraps ErrUnavailable.
func New(ctx context.Context) (*Engine, error) {
	e := &Engine{cache: wazero.NewCompilationCache(), runtimes: map[uint32]*runtime{}}
	if _, err := e.runtime(ctx, PagesFor(64<<20)); err != nil {
		return nil, err
	}
	return e, nil
}

// PagesFor returns the wasm page cap for a QuickJS heap limit of memoryBytes:
// the heap limit plus a quarter for allocator overhead plus 8 MiB for the
// module's own data and stack. The cap is the hard backstop behind
// JS_SetMemoryLimit (DESIGN.md: some allocation patterns overshoot it).
func PagesFor(memoryBytes int64) uint32 {
	b := memoryBytes + memoryBytes/4 + 8<<20
	p := (b + PageSize - 1) / PageSize
	if p > 65536 {
		p = 65536
	}
	return uint32(p)
}

// runtime returns the wazero runtime for a page cap, compiling on first use
// (the compilation cache makes later compiles cheap).
func (e *Engine) runtime(ctx context.Context, pages uint32) (*runtime, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, fmt.Errorf("%w: engine closed", ErrUnavailable)
	}
	if rt, ok := e.runtimes[pages]; ok {
		return rt, nil
	}
	cfg := wazero.NewRuntimeConfig().
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(pages).
		WithCompilationCache(e.cache)
	r := wazero.NewRuntimeWithConfig(ctx, cfg)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, r); err != nil {
		r.Close(ctx)
		return nil, fmt.Errorf("%w: wasi: %v", ErrUnavailable, err)
	}
	cm, err := r.CompileModule(withOOMListener(ctx), quickjswasi.QuickJSWASM)
	if err != nil {
		r.Close(ctx)
		return nil, fmt.Errorf("%w: compile: %v", ErrUnavailable, err)
	}
	rt := &runtime{r: r, cm: cm}
	e.runtimes[pages] = rt
	return rt, nil
}

// Close releases every runtime; VMs still open become unusable.
func (e *Engine) Close(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	for _, rt := range e.runtimes {
		rt.r.Close(ctx)
	}
	e.runtimes = nil
	return nil
}

// Version is the embedded QuickJS-NG version.
const Version = quickjswasi.Version
